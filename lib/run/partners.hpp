// The partners of a run's stages that read other images (lib/stages/partners.hpp): the whole
// sorted input list (every shard's). A partner's header, labels and label map are read when a draw
// first asks for it and kept in a small cache; its pixels are decoded at full size each time an Op
// runs with it, and let go when its cell is done.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "lib/datasets/format.hpp"
#include "lib/datasets/masks.hpp"
#include "lib/io/codec.hpp"
#include "lib/run/jobs.hpp"
#include "lib/stages/partners.hpp"

namespace aug {

class PartnerCache final : public PartnerSource {
 public:
  // `capacity`: partners' headers, labels and label maps kept after the draws that read them (a few
  // per worker: partners are drawn at random, so a larger cache seldom hits and only holds memory).
  PartnerCache(std::vector<InputFile> inputs, DecodeOptions decode, labels::Format* format,
               const labels::MaskFolder* masks, std::size_t capacity);

  std::size_t size() const override { return inputs_.size(); }
  std::optional<std::size_t> index_of(std::string_view rel) const override;
  std::shared_ptr<const Partner> get(std::size_t index) const override;
  std::shared_ptr<const Image> pixels(std::size_t index) const override;

 private:
  std::shared_ptr<const Partner> load(std::size_t index) const;

  std::vector<InputFile> inputs_;
  DecodeOptions decode_;
  labels::Format* format_;
  const labels::MaskFolder* masks_;
  std::size_t capacity_;
  mutable std::mutex m_;
  mutable std::list<std::pair<std::size_t, std::shared_ptr<const Partner>>> recent_;  // most recent first
};

}  // namespace aug
