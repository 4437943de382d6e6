// morphology's host driver (the CPU backend): each output value starts at the identity of its
// operation (the lowest value for dilate, the highest for erode) and takes the maximum or minimum
// with the value under every element cell. Where all the cells lie inside the row, blocks of 128
// bytes of the output row are kept in registers while every cell's shifted input row passes over
// them; at the row's ends each cell goes over the part it reaches. Every pixel's cells are visited
// in the kernel bodies' order (element rows, then columns), and every pixel has at least its anchor
// cell, so the identity never survives: the same values as the bodies.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/filter/morphology.hpp"

namespace aug::k::cpu {

namespace morphology_cpu_impl {
namespace {

template <bool Dilate, class T>
inline T pick(T s, T v) {
  if constexpr (Dilate) return s > v ? s : v;
  else return s < v ? s : v;
}

// o[k] = pick(s[k], o[k]) for k < n.
template <bool Dilate, class T>
AUG_CLONES void pick_into(T* __restrict o, const T* __restrict s, int n) {
  for (int k = 0; k < n; ++k) o[k] = pick<Dilate>(s[k], o[k]);
}

// Where every cell lies inside the row: values [from, to) of the output row from the cells'
// shifted input rows `src` (cell order), four 32-byte vectors at a time held in registers.
template <class T>
struct VecOf;
template <>
struct VecOf<std::uint8_t> {
  typedef std::uint8_t type __attribute__((vector_size(32)));
};
template <>
struct VecOf<std::uint16_t> {
  typedef std::uint16_t type __attribute__((vector_size(32)));
};
template <>
struct VecOf<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <class T>
using Vec = typename VecOf<T>::type;

template <bool Dilate, class V>
inline V pick_vec(V s, V v) {
  if constexpr (Dilate) return s > v ? s : v;
  else return s < v ? s : v;
}

template <class T>
inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <bool Dilate, class T>
AUG_CLONES void interior(T* __restrict o, const T* const* src, int cells, int from, int to, T init) {
  constexpr int kLanes = 32 / static_cast<int>(sizeof(T));
  const Vec<T> start = init - Vec<T>{};  // init in every lane
  int x = from;
  for (; x + 4 * kLanes <= to; x += 4 * kLanes) {
    Vec<T> a0 = start, a1 = start, a2 = start, a3 = start;
    for (int c = 0; c < cells; ++c) {
      const T* s = src[c] + x;
      a0 = pick_vec<Dilate>(load(s), a0);
      a1 = pick_vec<Dilate>(load(s + kLanes), a1);
      a2 = pick_vec<Dilate>(load(s + 2 * kLanes), a2);
      a3 = pick_vec<Dilate>(load(s + 3 * kLanes), a3);
    }
    std::memcpy(o + x, &a0, sizeof a0);
    std::memcpy(o + x + kLanes, &a1, sizeof a1);
    std::memcpy(o + x + 2 * kLanes, &a2, sizeof a2);
    std::memcpy(o + x + 3 * kLanes, &a3, sizeof a3);
  }
  for (; x + kLanes <= to; x += kLanes) {
    Vec<T> a = start;
    for (int c = 0; c < cells; ++c) a = pick_vec<Dilate>(load(src[c] + x), a);
    std::memcpy(o + x, &a, sizeof a);
  }
  if (x < to && to - from >= kLanes) {  // the last values: one more vector ending at `to`
    x = to - kLanes;
    Vec<T> a = start;
    for (int c = 0; c < cells; ++c) a = pick_vec<Dilate>(load(src[c] + x), a);
    std::memcpy(o + x, &a, sizeof a);
    return;
  }
  for (; x < to; ++x) {
    T v = init;
    for (int c = 0; c < cells; ++c) v = pick<Dilate>(src[c][x], v);
    o[x] = v;
  }
}

template <class T>
T identity(bool dilate) {
  if constexpr (std::is_same_v<T, float>)
    return dilate ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  else return dilate ? T{0} : std::numeric_limits<T>::max();
}

template <bool Dilate, class T>
void run(View<const T> in, View<T> out, const MorphologyArgs& a) {
  const int C = in.channels, W = in.width, H = in.height;
  const T init = identity<T>(Dilate);
  // The columns every cell reaches: pixels [left, right) have all their cells inside the row.
  int reach_left = 0, reach_right = 0;
  for (int i = 0; i < a.rows; ++i)
    if (a.spans[2 * i] < a.spans[2 * i + 1]) {
      reach_left = std::max(reach_left, a.ax - a.spans[2 * i]);
      reach_right = std::max(reach_right, a.spans[2 * i + 1] - 1 - a.ax);
    }
  const int left = std::min(W, reach_left), right = std::max(left, W - reach_right);
  std::vector<const T*> src;
  for (int y = 0; y < H; ++y) {
    T* o = out.row(y);
    src.clear();
    for (int i = 0; i < a.rows; ++i) {
      const int sy = y + i - a.ay;
      if (sy < 0 || sy >= H) continue;
      for (int j = a.spans[2 * i]; j < a.spans[2 * i + 1]; ++j) src.push_back(in.row(sy) + (j - a.ax) * C);
    }
    interior<Dilate>(o, src.data(), static_cast<int>(src.size()), left * C, right * C, init);
    // The edges: each cell over the part of them it reaches, in the same cell order.
    for (const auto& [from, to] : {std::pair{0, left}, std::pair{right, W}}) {
      if (to <= from) continue;
      std::fill(o + from * C, o + to * C, init);
      for (int i = 0; i < a.rows; ++i) {
        const int sy = y + i - a.ay;
        if (sy < 0 || sy >= H) continue;
        const T* r = in.row(sy);
        for (int j = a.spans[2 * i]; j < a.spans[2 * i + 1]; ++j) {
          const int dx = j - a.ax;
          const int x0 = std::max(from, -dx), x1 = std::min(to, W - dx);
          if (x1 > x0) pick_into<Dilate>(o + x0 * C, r + (x0 + dx) * C, (x1 - x0) * C);
        }
      }
    }
  }
}

}  // namespace
}  // namespace morphology_cpu_impl

template <class T>
void morphology(View<const T> in, View<T> out, const MorphologyArgs& a) {
  if (a.dilate) morphology_cpu_impl::run<true>(in, out, a);
  else morphology_cpu_impl::run<false>(in, out, a);
}

template void morphology<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const MorphologyArgs&);
template void morphology<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const MorphologyArgs&);
template void morphology<float>(View<const float>, View<float>, const MorphologyArgs&);

}  // namespace aug::k::cpu
