// Errors are values with a place: each names what the user can fix (the file, the JSON pointer,
// the stage and parameter, the device). apps/ maps them to the documented exit codes in one place.
#pragma once

#include <stdexcept>
#include <string>

namespace aug {

enum class Exit : int {
  ok = 0,
  usage = 1,        // bad arguments, invalid pipeline, unusable device: nothing was written
  file_errors = 2,  // finished, but some inputs failed
  mismatch = 3,     // verify-devices: a comparison exceeded its tolerance
  interrupted = 130,
};

class Error : public std::runtime_error {
 public:
  Error(Exit code, const std::string& message) : std::runtime_error(message), code_(code) {}
  Exit code() const { return code_; }

 private:
  Exit code_;
};

// Wrong arguments or paths on the command line.
struct UsageError : Error {
  explicit UsageError(const std::string& m) : Error(Exit::usage, m) {}
};

// An invalid pipeline file; the message already carries file, JSON pointer, stage and parameter.
struct PipelineError : Error {
  explicit PipelineError(const std::string& m) : Error(Exit::usage, m) {}
};

// A problem with one input image (unreadable, truncated, too large, unsupported by a stage).
// The runner reports it on one line with the file's path and carries on with the other inputs.
struct InputError : Error {
  explicit InputError(const std::string& m) : Error(Exit::file_errors, m) {}
};

// No usable device for the selection the user made, or a device failure.
struct DeviceError : Error {
  explicit DeviceError(const std::string& m) : Error(Exit::usage, m) {}
};

}  // namespace aug
