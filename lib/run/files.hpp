// File plumbing for runs: reading inputs, atomic writes (temp name + rename), stale temp cleanup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace aug {

namespace fs = std::filesystem;

// Every temporary file augment writes starts with this; nothing else does.
inline constexpr const char* kTempPrefix = ".augment-tmp-";

// Throws InputError("cannot read ...") on failure.
std::vector<std::uint8_t> read_file(const fs::path& path);

// Writes an unnamed file (O_TMPFILE) in the target folder and links it under `path` once
// complete, or, to replace a file or where O_TMPFILE is missing, writes a temporary name and
// renames it: a reader, or a later --resume, sees the old file or the complete new one, never a
// partial one (also after kill -9).
// Throws InputError naming the path and the system's reason.
void write_file_atomic(const fs::path& path, const void* data, std::size_t size);

// Removes temporary files left by an interrupted run under `dir`; returns how many.
std::size_t remove_stale_temps(const fs::path& dir);

}  // namespace aug
