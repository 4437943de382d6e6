// The jpeg stage's per-quality tables, built on the host and handed to every backend.
#pragma once

#include "kernels/codec/jpeg.hpp"

namespace aug {

// libjpeg's tables for a quality 1..100 (jpeg_set_quality with force_baseline).
k::JpegQuant libjpeg_tables(int quality);
// Kornia's: DCT basis with its binary32 pi, scaled tables dfloor(softclip((QT s + 50) / 100, 1, 255)),
// the chroma blur taps.
k::KorniaJpegTables kornia_tables(float quality);

}  // namespace aug
