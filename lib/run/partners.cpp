#include "lib/run/partners.hpp"

#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/io/files.hpp"

namespace aug {

PartnerCache::PartnerCache(std::vector<InputFile> inputs, DecodeOptions decode, labels::Format* format,
                           const labels::MaskFolder* masks, std::size_t capacity)
    : inputs_(std::move(inputs)), decode_(std::move(decode)), format_(format), masks_(masks), capacity_(capacity) {
  // Partners are whole images at full size, whatever the inputs' own decode draws.
  decode_.shrink = nullptr;
  decode_.region = nullptr;
}

std::optional<std::size_t> PartnerCache::index_of(std::string_view rel) const {
  const auto it = std::lower_bound(inputs_.begin(), inputs_.end(), rel,
                                   [](const InputFile& f, std::string_view r) { return f.rel < r; });
  if (it == inputs_.end() || it->rel != rel) return std::nullopt;
  return static_cast<std::size_t>(it - inputs_.begin());
}

std::shared_ptr<const Partner> PartnerCache::get(std::size_t index) const {
  {
    std::lock_guard lk(m_);
    for (auto it = recent_.begin(); it != recent_.end(); ++it)
      if (it->first == index) {
        recent_.splice(recent_.begin(), recent_, it);
        return it->second;
      }
  }
  // Decoded outside the lock: two workers may decode the same partner at once; both get equal pixels.
  std::shared_ptr<const Partner> p = load(index);
  std::lock_guard lk(m_);
  ++decodes_;
  recent_.emplace_front(index, p);
  while (recent_.size() > capacity_) recent_.pop_back();
  return p;
}

std::size_t PartnerCache::decodes() const {
  std::lock_guard lk(m_);
  return decodes_;
}

std::shared_ptr<const Partner> PartnerCache::load(std::size_t index) const {
  const InputFile& in = inputs_.at(index);
  auto p = std::make_shared<Partner>();
  p->rel = in.rel;
  try {
    const std::vector<std::uint8_t> bytes = read_file(in.path);
    p->image = decode_image(bytes.data(), bytes.size(), decode_);
    if (format_) p->labels = format_->read(in.path, in.rel, p->image.width(), p->image.height());
    if (masks_) {
      const auto file = masks_->find(in.rel);
      if (!file) throw InputError("its mask " + masks_->path_for(in.rel).string() + " is missing");
      p->mask = labels::read_mask(*file).image;
      if (p->mask->width() != p->image.width() || p->mask->height() != p->image.height())
        throw InputError("its mask is " + std::to_string(p->mask->width()) + "x" + std::to_string(p->mask->height()) +
                         " but the image is " + std::to_string(p->image.width()) + "x" +
                         std::to_string(p->image.height()));
    }
  } catch (const std::exception& e) {
    throw InputError("its partner " + in.path.string() + " cannot be used: " + e.what());
  }
  return p;
}

}  // namespace aug
