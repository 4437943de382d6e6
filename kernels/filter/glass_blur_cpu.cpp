// glass_blur's host driver. 'fast': per iteration the pixels outside the interior are copied, every
// interior pixel takes its target's value (row by row, each offset drawn once and kept), then every
// target takes its source's value where that source comes last in NumPy's order among those seen
// for it so far (owners kept for the 2d rows a source row reaches, as 16 bits while the columns
// fit): the winner is NumPy's last write, as in the kernels. A row's offsets are decoded in a loop
// of their own (it vectorises) before the pixels move; 8-bit RGB pixels move as 32-bit words.
// 'exact': the serial swaps, each row's offsets decoded first.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/filter/glass_blur.hpp"

namespace aug::k::cpu {

namespace glass_blur_cpu_impl {
namespace {

constexpr int kMaxDelta = 100;         // the largest max_delta the stage accepts

#if defined(AUG_AVX2_PHILOX)
// out[3 i + k] = w_k[i] for the first multiple of 8 of the n values; returns how many were done.
[[gnu::target("avx2")]] int interleave_words_avx2(const std::uint32_t* w0, const std::uint32_t* w1,
                                                  const std::uint32_t* w2, int n, std::uint32_t* out) {
  int i = 0;
  for (; i + 8 <= n; i += 8)
    interleave3_avx2(_mm256_loadu_ps(reinterpret_cast<const float*>(w0 + i)),
                     _mm256_loadu_ps(reinterpret_cast<const float*>(w1 + i)),
                     _mm256_loadu_ps(reinterpret_cast<const float*>(w2 + i)), out + 3 * static_cast<std::size_t>(i));
  return i;
}
#endif

// The words of row y's offsets for columns [x0, x1] in iteration `it`: the word of column x is
// words[x - origin] (block x / 3, word x % 3).
struct RowWords {
  int origin = 0;
  std::vector<std::uint32_t> w0, w1, w2, words;
  const std::uint32_t* draw(const GlassArgs& a, int W, int y, int x0, int x1, int it) {
    const int n = x1 / 3 - x0 / 3 + 1;
    for (auto* v : {&w0, &w1, &w2, &words}) v->resize(static_cast<std::size_t>(n) * 3);
    philox_blocks(a.stream, glass_blur_block_index(W, y, x0), kGlassBlurPurpose + static_cast<std::uint32_t>(it), n,
                  w0.data(), w1.data(), w2.data());
    int i0 = 0;
#if defined(AUG_AVX2_PHILOX)
    if (host_has_avx2()) i0 = interleave_words_avx2(w0.data(), w1.data(), w2.data(), n, words.data());
#endif
    for (int i = i0; i < n; ++i) {
      words[3 * static_cast<std::size_t>(i)] = w0[static_cast<std::size_t>(i)];
      words[3 * static_cast<std::size_t>(i) + 1] = w1[static_cast<std::size_t>(i)];
      words[3 * static_cast<std::size_t>(i) + 2] = w2[static_cast<std::size_t>(i)];
    }
    origin = 3 * (x0 / 3);
    return words.data();
  }
};

// glass_blur_decode of n words into (dy, dx) pairs, in a loop that vectorises.
AUG_CLONES void decode_offsets(const std::uint32_t* __restrict w, int n, int d, std::int8_t* __restrict o) {
  const std::uint32_t span = 2u * static_cast<std::uint32_t>(d);
  for (int i = 0; i < n; ++i) {
    o[2 * i] = static_cast<std::int8_t>(-d + static_cast<int>(((w[i] & 0xffffu) * span) >> 16));
    o[2 * i + 1] = static_cast<std::int8_t>(-d + static_cast<int>(((w[i] >> 16) * span) >> 16));
  }
}

// A pixel's C values moved from `from` to `to`. 8-bit RGB: as one 32-bit word whose low byte is the
// value before the pixel (always inside the row: every source and target has x >= 1), so that no
// access reaches past the pixel's last value; the byte before is written back as it was read.
template <class T, int C>
[[gnu::always_inline]] inline void move_pixel(T* to, const T* from) {
  if constexpr (sizeof(T) == 1 && C == 3) {
    std::uint32_t f, t;
    std::memcpy(&f, from - 1, 4);
    std::memcpy(&t, to - 1, 4);
    t = (t & 0xffu) | (f & 0xffffff00u);
    std::memcpy(to - 1, &t, 4);
  } else {
    T v[C];
    std::memcpy(v, from, sizeof v);
    std::memcpy(to, v, sizeof v);
  }
}

// The same for a row written left to right: 8-bit RGB stores a whole word at `to`, whose last byte
// (the next pixel's first value) the next pixel writes; the row's last pixel goes through move_pixel.
template <class T, int C>
[[gnu::always_inline]] inline void move_pixel_ahead(T* to, const T* from) {
  if constexpr (sizeof(T) == 1 && C == 3) {
    std::uint32_t f;
    std::memcpy(&f, from - 1, 4);
    f >>= 8;
    std::memcpy(to, &f, 4);
  } else {
    move_pixel<T, C>(to, from);
  }
}

// One iteration of 'fast' from src into dst (distinct), C channels; Own holds a column index, with
// kNone for "no source yet".
template <class T, int C, class Own>
void fast_iteration(View<const T> src, View<T> dst, const GlassArgs& a, int it, std::vector<std::int8_t>& off,
                    std::vector<Own>& owner, RowWords& rw) {
  constexpr Own kNone = std::numeric_limits<Own>::max();  // above every column: every source wins
  const int W = src.width, H = src.height, d = a.max_delta;
  const int nh = H - 2 * d, nw = W - 2 * d;
  const std::size_t row_bytes = static_cast<std::size_t>(W) * C * sizeof(T);
  if (nh <= 0 || nw <= 0) {
    for (int y = 0; y < H; ++y) std::memcpy(dst.row(y), src.row(y), row_bytes);
    return;
  }
  // What no swap touches keeps its value: the rows and columns outside the interior (targets among
  // them are written below).
  for (int y = 0; y < H; ++y) {
    if (y <= d || y > H - d) {
      std::memcpy(dst.row(y), src.row(y), row_bytes);
    } else {
      std::memcpy(dst.row(y), src.row(y), static_cast<std::size_t>(d + 1) * C * sizeof(T));
      std::memcpy(dst.row(y) + (W - d + 1) * C, src.row(y) + (W - d + 1) * C,
                  static_cast<std::size_t>(d - 1) * C * sizeof(T));
    }
  }
  // Every interior pixel takes its target's value; the offsets are kept for the second pass.
  for (int j = 0; j < nh; ++j) {
    const int y = d + 1 + j;
    std::int8_t* o = off.data() + static_cast<std::size_t>(j) * nw * 2;
    T* out = dst.row(y);
    // Locals, not members read in the loop: the byte stores below could alias them.
    const std::uint32_t* words = rw.draw(a, W, y, d + 1, W - d, it) - rw.origin;
    const T* src_rows[2 * kMaxDelta];  // rows y - d .. y + d - 1, by dy + d
    for (int dy = -d; dy < d; ++dy) src_rows[dy + d] = src.row(y + dy);
    decode_offsets(words + d + 1, nw, d, o);
    for (int i = 0; i < nw; ++i) {
      const int x = d + 1 + i;
      const int dy = o[2 * i], dx = o[2 * i + 1];
      if (i + 1 < nw) move_pixel_ahead<T, C>(out + x * C, src_rows[dy + d] + (x + dx) * C);
      else move_pixel<T, C>(out + x * C, src_rows[dy + d] + (x + dx) * C);
    }
  }
  // Every target takes its source's value; of several sources the one of largest k wins, the
  // smallest x, then the smallest y. Rows are taken from the bottom up, so a later source of the
  // same x has the smaller y: a source wins where its x is at most the owner's. The owners are kept
  // for the 2d target rows a source row reaches (rows y - d to y + d - 1), a ring of rows: when row y
  // starts, target row y - d becomes reachable and takes the slot of row y + d, which no longer is.
  const int ring = 2 * d;
  Own* const owners = owner.data();  // a local: the byte stores below could alias the vector's pointer
  for (int r = 0; r < ring; ++r) std::fill_n(owners + static_cast<std::size_t>(r) * W, W, kNone);
  for (int j = nh - 1; j >= 0; --j) {
    const int y = d + 1 + j;
    if (j != nh - 1) std::fill_n(owners + static_cast<std::size_t>((y - d) % ring) * W, W, kNone);
    // The owner and output rows of targets y - d .. y + d - 1, by dy + d.
    Own* own_rows[2 * kMaxDelta];
    T* dst_rows[2 * kMaxDelta];
    for (int dy = -d; dy < d; ++dy) {
      own_rows[dy + d] = owners + static_cast<std::size_t>((y + dy) % ring) * W;
      dst_rows[dy + d] = dst.row(y + dy);
    }
    const std::int8_t* o = off.data() + static_cast<std::size_t>(j) * nw * 2;
    const T* in = src.row(y);
    for (int i = 0; i < nw; ++i) {
      const int x = d + 1 + i;
      const int r = o[2 * i] + d, tx = x + o[2 * i + 1];
      Own& own = own_rows[r][tx];
      const bool wins = x <= static_cast<int>(own);  // a coin toss: selects, no branch
      own = wins ? static_cast<Own>(x) : own;
      T* to = dst_rows[r] + tx * C;
      move_pixel<T, C>(to, wins ? in + x * C : to);
    }
  }
}

template <class T, class Own>
void fast_iteration_any(View<const T> src, View<T> dst, const GlassArgs& a, int it, std::vector<std::int8_t>& off,
                        std::vector<Own>& owner, RowWords& rw) {
  switch (src.channels) {
    case 1: return fast_iteration<T, 1>(src, dst, a, it, off, owner, rw);
    case 2: return fast_iteration<T, 2>(src, dst, a, it, off, owner, rw);
    case 3: return fast_iteration<T, 3>(src, dst, a, it, off, owner, rw);
    default: return fast_iteration<T, 4>(src, dst, a, it, off, owner, rw);
  }
}

}  // namespace
}  // namespace glass_blur_cpu_impl

template <class T>
void glass_blur_fast(View<const T> in, View<T> out, const GlassArgs& a) {
  const int W = in.width, H = in.height, C = in.channels, d = a.max_delta;
  const int nh = std::max(0, H - 2 * d), nw = std::max(0, W - 2 * d);
  // Buffers kept by each worker thread from image to image (as large as the largest image seen), so
  // that a steady stream of images neither allocates nor faults in fresh pages.
  thread_local std::vector<std::int8_t> off;
  thread_local std::vector<std::uint16_t> owner16;  // owners as 16 bits while the columns fit: half the cache
  thread_local std::vector<int> owner32;
  thread_local std::vector<T> other;
  thread_local glass_blur_cpu_impl::RowWords rw;
  const bool narrow = W < 0x7fff;
  off.resize(std::max(off.size(), static_cast<std::size_t>(nh) * nw * 2));
  if (narrow) owner16.resize(std::max(owner16.size(), static_cast<std::size_t>(W) * 2 * d));
  else owner32.resize(std::max(owner32.size(), static_cast<std::size_t>(W) * 2 * d));
  const std::size_t pitch = static_cast<std::size_t>(W) * C;
  if (a.iterations > 1) other.resize(std::max(other.size(), pitch * H));
  const View<T> other_view{other.data(), W, H, C, pitch * sizeof(T)};
  View<const T> src = in;
  for (int it = 0; it < a.iterations; ++it) {
    const View<T> dst = (a.iterations - 1 - it) % 2 == 0 ? out : other_view;
    if (narrow) glass_blur_cpu_impl::fast_iteration_any(src, dst, a, it, off, owner16, rw);
    else glass_blur_cpu_impl::fast_iteration_any(src, dst, a, it, off, owner32, rw);
    src = as_const(dst);
  }
}

template <class T>
void glass_blur_exact(View<T> x, const GlassArgs& a) {
  const int W = x.width, H = x.height, C = x.channels, d = a.max_delta;
  if (H - 2 * d <= 0 || W - 2 * d <= 0) return;
  thread_local glass_blur_cpu_impl::RowWords rw;
  thread_local std::vector<std::int8_t> off;
  const int nw = W - 2 * d;
  off.resize(std::max(off.size(), static_cast<std::size_t>(nw) * 2));
  for (int it = 0; it < a.iterations; ++it)
    for (int y = H - d; y >= d + 1; --y) {
      const std::uint32_t* words = rw.draw(a, W, y, d + 1, W - d, it) - rw.origin;
      const std::int8_t* const o = off.data();  // column px's offsets at o[2 (px - d - 1)] and the next
      glass_blur_cpu_impl::decode_offsets(words + d + 1, nw, d, off.data());
      T* rows[2 * glass_blur_cpu_impl::kMaxDelta];  // rows y - d .. y + d - 1, by dy + d
      for (int dy = -d; dy < d; ++dy) rows[dy + d] = x.row(y + dy);
      for (int px = W - d; px >= d + 1; --px) {
        const int dy = o[2 * (px - d - 1)], dx = o[2 * (px - d - 1) + 1];
        T* p = rows[d] + px * C;
        T* q = rows[dy + d] + (px + dx) * C;
        for (int c = 0; c < C; ++c) std::swap(p[c], q[c]);
      }
    }
}

template void glass_blur_fast<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GlassArgs&);
template void glass_blur_fast<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GlassArgs&);
template void glass_blur_fast<float>(View<const float>, View<float>, const GlassArgs&);
template void glass_blur_exact<std::uint8_t>(View<std::uint8_t>, const GlassArgs&);
template void glass_blur_exact<std::uint16_t>(View<std::uint16_t>, const GlassArgs&);
template void glass_blur_exact<float>(View<float>, const GlassArgs&);
template void glass_blur_exact<std::int32_t>(View<std::int32_t>, const GlassArgs&);

}  // namespace aug::k::cpu

namespace aug::k {

void glass_blur_exact_order(int width, int height, const GlassArgs& args, std::int32_t* order) {
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw KernelError("glass_blur: mode exact takes images of fewer than 2^31 pixels");
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::int32_t>(i);
  cpu::glass_blur_exact(View<std::int32_t>{order, width, height, 1, static_cast<std::size_t>(width) * sizeof(std::int32_t)},
                        args);
}

}  // namespace aug::k
