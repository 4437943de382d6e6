#include "lib/run/partners.hpp"

#include <algorithm>
#include <tuple>

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
  recent_.emplace_front(index, p);
  while (recent_.size() > capacity_) recent_.pop_back();
  return p;
}

std::shared_ptr<const Image> PartnerCache::pixels(std::size_t index) const {
  const InputFile& in = inputs_.at(index);
  const std::shared_ptr<const Partner> p = get(index);
  try {
    const std::vector<std::uint8_t> bytes = read_file(in.path());
    auto im = std::make_shared<Image>(decode_image(bytes.data(), bytes.size(), decode_));
    if (im->width() != p->width || im->height() != p->height)
      throw InputError("decoded to " + std::to_string(im->width()) + "x" + std::to_string(im->height()) +
                       " where its header says " + std::to_string(p->width) + "x" + std::to_string(p->height));
    return im;
  } catch (const std::exception& e) {
    throw InputError("its partner " + in.path() + " cannot be used: " + e.what());
  }
}

std::shared_ptr<const Partner> PartnerCache::load(std::size_t index) const {
  const InputFile& in = inputs_.at(index);
  auto p = std::make_shared<Partner>();
  p->rel = in.rel;
  try {
    const auto size = oriented_size(in.path());
    if (!size) throw InputError("its header cannot be read");
    std::tie(p->width, p->height) = *size;
    if (format_) p->labels = format_->read(in.path(), in.rel, p->width, p->height);
    if (masks_) {
      const auto file = masks_->find(in.rel);
      if (!file) throw InputError("its mask " + masks_->path_for(in.rel).string() + " is missing");
      p->mask = labels::read_mask(*file).image;
      if (p->mask->width() != p->width || p->mask->height() != p->height)
        throw InputError("its mask is " + std::to_string(p->mask->width()) + "x" + std::to_string(p->mask->height()) +
                         " but the image is " + std::to_string(p->width) + "x" + std::to_string(p->height));
    }
  } catch (const std::exception& e) {
    throw InputError("its partner " + in.path() + " cannot be used: " + e.what());
  }
  return p;
}

}  // namespace aug
