// channel_shuffle: out[c] = in[order[c]] for the colour channels; alpha copied.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct ShuffleArgs {
  AUG_FIELDS(ShuffleArgs, order, color_channels)
  int order;  // source channel of colour channel c in bits 2c..2c+1 (no array: kernels index no local memory)
  int color_channels;
};

template <class T>
void channel_shuffle(View<const T> in, View<T> out, const ShuffleArgs& args, const Exec& exec);

}  // namespace aug::k
