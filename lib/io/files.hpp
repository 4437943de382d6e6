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
// Folders above `path` that are missing are created first.
// Throws InputError naming the path and the system's reason.
void write_file_atomic(const fs::path& path, const void* data, std::size_t size);

// Checks, before any work, that a command can write the file `path` (given with `option`, e.g.
// "--report"): it is not a folder, its nearest existing ancestor is a folder this process can
// write in (missing folders are created when the file is written), and it lies outside `input`
// when one is given (the folder or file the command reads). Creates nothing. Throws UsageError
// naming the option, the path and what is wrong.
void check_output_file(const fs::path& path, const std::string& option, const fs::path& input = {});
// The same for a folder the command writes into (it may exist; it is not an existing file).
void check_output_folder(const fs::path& path, const std::string& option, const fs::path& input = {});
// Whether `inner` is `outer` or lies below it, after resolving both (missing parts kept as written).
bool path_within(const fs::path& inner, const fs::path& outer);

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
