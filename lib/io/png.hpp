#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "lib/core/image.hpp"

namespace aug {

// 8- or 16-bit gray, RGB or RGBA (palette expanded, gray + alpha made RGBA). Throws InputError.
// `allocate`: where the pixels go (unset: a plain Image).
Image png_decode(const std::uint8_t* data, std::size_t size, const ImageAllocator& allocate = {});

// The libpng loaded at run time ("1.6.39").
std::string png_library_version();

}  // namespace aug
