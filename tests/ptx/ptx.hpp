// A PTX interpreter: runs the device code nvcc emits for augment's kernels, thread by thread, on
// the host, with PTX's own semantics (float-to-int conversions that saturate and send NaN to 0,
// shift amounts clamped to the width, min/max with NaN, IEEE rounding). It is part of the test
// tooling, never of the augment binary: the CUDA runtime stand-in (cudart.cpp) hands it the PTX
// embedded in the build's fat binaries, and the per-instruction tests hand it PTX text directly.
//
// What it reads: the subset of PTX (ISA 9.x) that nvcc 13 produces for kernels without shared
// memory, barriers, warp operations or device calls (docs/ptx-interpreter.md lists the forms).
// An instruction it does not execute is kept as such: launching a kernel that contains one fails
// with a Fault naming the kernel, the instruction and its source line, before any thread runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ptx {

// PTX text that cannot be read: "NAME:LINE:COL: what".
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A launch that failed, with the CUDA error a GPU gives for it:
//   9   invalid configuration (block or grid out of range; checked before anything runs)
//   700 illegal address (an access outside what the kernel may touch)
//   716 misaligned address (an access not aligned to its size)
//   715 illegal instruction (an instruction the interpreter does not execute; checked before anything runs)
//   719 launch failure (integer division by zero; a thread that runs past the step limit)
// The message names the kernel, the block and thread, the instruction and its .loc source line.
struct Fault : std::runtime_error {
  Fault(int code, const std::string& what) : std::runtime_error(what), code(code) {}
  int code;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

// A kernel parameter as the PTX declares it: where it lies in the parameter buffer.
struct Param {
  std::string name;
  std::size_t offset = 0, size = 0, align = 1;
};

class Module;
struct Launch;

class Kernel {
 public:
  const std::string& name() const { return name_; }
  const std::vector<Param>& params() const { return params_; }
  // Bytes of the parameter buffer: the parameters in order, each at its alignment.
  std::size_t param_bytes() const { return param_bytes_; }
  // The instructions the interpreter does not execute, as "line L: text" (empty when it runs).
  const std::vector<std::string>& unsupported() const { return unsupported_; }
  // How many instructions the kernel has.
  std::size_t size() const;

 private:
  friend class Module;
  friend void run(const Kernel& kernel, const Launch& launch);
  std::string name_;
  std::vector<Param> params_;
  std::size_t param_bytes_ = 0;
  std::vector<std::string> unsupported_;
  std::shared_ptr<const void> code_;  // the decoded instructions (ptx.cpp)
};

class Module {
 public:
  // Parses a module's text; `source` names it in errors. Throws ParseError.
  static std::shared_ptr<const Module> parse(std::string_view text, const std::string& source);

  const Kernel* find(std::string_view name) const;  // nullptr when absent
  const std::vector<Kernel>& kernels() const { return kernels_; }
  // Every instruction form in the module ("add.s32", "ld.global.v4.f32", "setp.lt.f32") and how
  // many times it occurs; those the interpreter does not execute are listed by Kernel::unsupported.
  const std::map<std::string, std::size_t>& forms() const { return forms_; }

 private:
  std::vector<Kernel> kernels_;
  std::map<std::string, std::size_t> forms_;
};

// Which global addresses a launch may read and write: the device memory of the device it runs
// on. Accesses to the launch's own parameter buffer (through .param or a cvta.param pointer) and
// to each thread's .local depot are checked by the interpreter itself.
class Memory {
 public:
  virtual ~Memory() = default;
  // True when [address, address + bytes) lies inside one allocation the kernel may access.
  virtual bool accessible(std::uint64_t address, std::size_t bytes) const = 0;
};

struct Launch {
  Dim3 grid, block;
  const void* params = nullptr;     // Kernel::param_bytes() bytes, laid out as Kernel::params() says
  const Memory* memory = nullptr;   // nullptr: every global address is accessible (tests)
  int threads = 1;                  // host threads that run the grid's blocks
  std::uint64_t step_limit = 0;     // instructions one GPU thread may execute; 0: 2^32
};

// A kernel's name as C++ spells it (demangled), for messages.
std::string display_name(const std::string& mangled);

// Checks a launch before it runs: Fault 9 for a grid or block out of the GPU's limits (blocks of
// at most 1024 threads, 1024 x 1024 x 64; grids of at most 2^31 - 1 x 65535 x 65535), 715 for a
// kernel with an instruction the interpreter does not execute.
void check_launch(const Kernel& kernel, const Dim3& grid, const Dim3& block);

// Runs every thread of the grid; returns when all have finished. Throws Fault: 9 and 715 before
// any thread runs, the others for the first faulting thread (the other blocks may have run).
void run(const Kernel& kernel, const Launch& launch);

}  // namespace ptx
