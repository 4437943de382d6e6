// The partners of a run's stages that read other images (lib/stages/partners.hpp): the whole
// sorted input list (every shard's), each decoded at full size with its labels and label map when
// first asked for, and kept in a small cache while stages hold it.
#pragma once

#include <cstddef>
#include <list>
#include <map>
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
  // `capacity`: partners kept after the Ops that use them are done (a few per worker: partners are
  // drawn at random, so a larger cache seldom hits and only holds memory).
  PartnerCache(std::vector<InputFile> inputs, DecodeOptions decode, labels::Format* format,
               const labels::MaskFolder* masks, std::size_t capacity);

  std::size_t size() const override { return inputs_.size(); }
  std::optional<std::size_t> index_of(std::string_view rel) const override;
  std::shared_ptr<const Partner> get(std::size_t index) const override;

  std::size_t decodes() const;  // partners decoded so far (a cache miss each)

 private:
  std::shared_ptr<const Partner> load(std::size_t index) const;

  std::vector<InputFile> inputs_;
  DecodeOptions decode_;
  labels::Format* format_;
  const labels::MaskFolder* masks_;
  std::size_t capacity_;
  mutable std::mutex m_;
  mutable std::list<std::pair<std::size_t, std::shared_ptr<const Partner>>> recent_;  // most recent first
  mutable std::size_t decodes_ = 0;
};

}  // namespace aug
