// File plumbing for runs: reading inputs, atomic writes (temp name + rename), stale temp cleanup.
#pragma once

#include <cstddef>
#include <chrono>
#include <cstdint>
#include <string>
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

// A named temporary file is ".augment-tmp-<pid>@<host>-<n>-<name>". One is stale, left by an
// interrupted run, when its writer on this host has exited (or has this process's pid), or when
// it is older than kTempsLiveFor (a writer on another host; also any other name with the
// prefix). Temporaries of runs writing into the same folder at the same time (shards of a job
// array) are left alone.
inline constexpr std::chrono::hours kTempsLiveFor{1};
bool temp_is_stale(const std::string& name, fs::file_time_type modified, fs::file_time_type now);

// A temporary name next to `path` for a file renamed over it when complete (the outputs' and the
// manifest's): ".augment-tmp-<pid>@<host>-<n>-<name>".
fs::path temp_path_for(const fs::path& path);

// Removes the stale temporary files under `dir`; returns how many.
std::size_t remove_stale_temps(const fs::path& dir);

}  // namespace aug
