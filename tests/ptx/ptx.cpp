// The PTX interpreter (ptx.hpp). Three steps:
//  1. read: the module's text becomes tokens, then kernels with their parameters, registers,
//     labels and raw instructions;
//  2. decode: each instruction becomes an Inst: a handler chosen by its form (opcode, modifiers,
//     types) and the register-file slots of its operands. Immediates, special registers and
//     symbol addresses get slots of their own, so every operand is read the same way;
//  3. run: each host thread takes blocks of the grid and runs their GPU threads one after another
//     to completion (the kernels share nothing but global memory through atomics).
// Registers are 64-bit slots holding bits. An instruction reads the low bits of its type's width;
// it writes its result zero-extended, or sign-extended for a signed type, which is what PTX asks
// of loads and conversions into wider registers.
#include "tests/ptx/ptx.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <cxxabi.h>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <unordered_map>

namespace ptx {

namespace {

// ---------------------------------------------------------------------------------------------
// Tokens

enum class Tok { Word, Punct, String, Newline, End };

struct Token {
  Tok kind;
  std::string text;
  int line, col;
};

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '%' || c == '.';
}

std::vector<Token> tokenize(std::string_view s, const std::string& source) {
  std::vector<Token> out;
  int line = 1, col = 1;
  std::size_t i = 0;
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n; ++k, ++i) {
      if (s[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      out.push_back({Tok::Newline, "\n", line, col});
      advance(1);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\0') {
      advance(1);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') advance(1);
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos)
        throw ParseError(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": unterminated comment");
      // a block comment ends a line where it spans one
      const int before = line;
      advance(end + 2 - i);
      if (line != before) out.push_back({Tok::Newline, "\n", line, col});
    } else if (c == '"') {
      const std::size_t end = s.find('"', i + 1);
      if (end == std::string_view::npos)
        throw ParseError(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": unterminated string");
      out.push_back({Tok::String, std::string(s.substr(i + 1, end - i - 1)), line, col});
      advance(end + 1 - i);
    } else if (word_char(c)) {
      std::size_t j = i;
      while (j < s.size() && word_char(s[j])) ++j;
      out.push_back({Tok::Word, std::string(s.substr(i, j - i)), line, col});
      advance(j - i);
    } else if (std::strchr(",;:[]{}()+-<>@!|=", c)) {
      out.push_back({Tok::Punct, std::string(1, c), line, col});
      advance(1);
    } else {
      throw ParseError(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": unexpected character '" +
                       std::string(1, c) + "'");
    }
  }
  out.push_back({Tok::End, "", line, col});
  return out;
}

// ---------------------------------------------------------------------------------------------
// Types

enum class Ty : std::uint8_t { None, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F32, F64, Pred };

Ty type_of(std::string_view s) {
  static const std::unordered_map<std::string_view, Ty> types{
      {"b8", Ty::B8},   {"b16", Ty::B16}, {"b32", Ty::B32}, {"b64", Ty::B64}, {"u8", Ty::U8},   {"u16", Ty::U16},
      {"u32", Ty::U32}, {"u64", Ty::U64}, {"s8", Ty::S8},   {"s16", Ty::S16}, {"s32", Ty::S32}, {"s64", Ty::S64},
      {"f16", Ty::F16}, {"f32", Ty::F32}, {"f64", Ty::F64}, {"pred", Ty::Pred}};
  const auto it = types.find(s);
  return it == types.end() ? Ty::None : it->second;
}
int bits_of(Ty t) {
  switch (t) {
    case Ty::B8: case Ty::U8: case Ty::S8: return 8;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: return 16;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: return 32;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: return 64;
    case Ty::Pred: return 1;
    default: return 0;
  }
}
bool is_float(Ty t) { return t == Ty::F32 || t == Ty::F64; }
bool is_signed(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }
bool is_int(Ty t) { return bits_of(t) >= 8 && !is_float(t) && t != Ty::F16; }

// ---------------------------------------------------------------------------------------------
// Decoded code

struct Thread;
struct Inst;
using Fn = void (*)(Thread&, const Inst&);

enum Space : std::uint8_t { InGeneric, InGlobal, InLocal, InParam };

struct Inst {
  Fn fn = nullptr;
  std::int32_t guard = -1;  // predicate slot, or -1
  bool guard_neg = false;
  Space space = InGeneric;
  std::uint8_t count = 1;   // vector elements, or other small counts
  std::uint32_t d[4] = {0, 0, 0, 0};  // destination slots
  std::uint32_t a = 0, b = 0, c = 0, e = 0;  // source slots
  std::int64_t offset = 0;  // address offset (mov's pack: its fourth source slot)
  std::uint32_t target = 0; // branch target
  std::uint32_t source = 0; // index of the instruction's text and line
};

struct SourceLine {
  int ptx_line;
  std::string text;
  int file, line;  // .loc, or 0
};

struct Code {
  std::vector<Inst> insts;
  std::vector<SourceLine> lines;
  std::vector<std::uint64_t> initial;  // the register file as a thread starts: constants set
  std::vector<std::pair<std::uint32_t, std::size_t>> param_slots;  // slot, offset in the parameter buffer
  std::vector<std::pair<std::uint32_t, std::size_t>> local_slots;  // slot, offset in the depot
  std::size_t depot_bytes = 0, depot_align = 8;
  std::map<int, std::string> files;
};

// Special registers, at fixed slots.
enum Special : std::uint32_t { TidX, TidY, TidZ, NtidX, NtidY, NtidZ, CtaX, CtaY, CtaZ, NctaX, NctaY, NctaZ, kSpecials };

// ---------------------------------------------------------------------------------------------
// Execution state

struct LaunchState {
  const Kernel* kernel;
  const Code* code;
  const Memory* memory;
  std::uint64_t param_begin, param_end;
  std::uint64_t step_limit;
};

struct ThreadFault {
  int code;
  std::string what;
};

struct Thread {
  std::uint64_t* r;
  std::size_t pc;
  const LaunchState* launch;
  std::uint64_t depot_begin, depot_end;
};

constexpr std::size_t kDone = std::numeric_limits<std::size_t>::max();

[[noreturn]] void fault(int code, std::string what) { throw ThreadFault{code, std::move(what)}; }

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

template <class T>
T rd(const Thread& t, std::uint32_t s) {
  if constexpr (std::is_same_v<T, float>) {
    const auto b = static_cast<std::uint32_t>(t.r[s]);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  } else if constexpr (std::is_same_v<T, double>) {
    double f;
    std::memcpy(&f, &t.r[s], 8);
    return f;
  } else {
    return static_cast<T>(t.r[s]);
  }
}

template <class T>
void wr(Thread& t, std::uint32_t s, T v) {
  if constexpr (std::is_same_v<T, float>) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    t.r[s] = b;
  } else if constexpr (std::is_same_v<T, double>) {
    std::memcpy(&t.r[s], &v, 8);
  } else if constexpr (std::is_signed_v<T>) {
    t.r[s] = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  } else {
    t.r[s] = static_cast<std::uint64_t>(v);
  }
}

// The GPU's NaN: operations return the one canonical pattern, whatever the inputs' payloads.
float canon(float v) {
  if (!std::isnan(v)) return v;
  const std::uint32_t b = 0x7FFFFFFFu;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
double canon(double v) {
  if (!std::isnan(v)) return v;
  const std::uint64_t b = 0x7FFFFFFFFFFFFFFFull;
  double f;
  std::memcpy(&f, &b, 8);
  return f;
}

// Checks an access of `bytes` at `address` in `space`; faults with 716 or 700.
void check_access(const Thread& t, std::uint64_t address, std::size_t bytes, Space space, bool write) {
  if (address % bytes != 0) fault(716, "misaligned address " + hex(address) + " for an access of " + std::to_string(bytes) + " bytes");
  const LaunchState& l = *t.launch;
  const bool in_params = address >= l.param_begin && address + bytes <= l.param_end;
  const bool in_depot = address >= t.depot_begin && address + bytes <= t.depot_end;
  switch (space) {
    case InParam:
      if (!in_params) fault(700, "parameter access at " + hex(address) + " outside the kernel's parameters");
      if (write) fault(700, "write to the kernel's parameters at " + hex(address));
      return;
    case InLocal:
      if (!in_depot) fault(700, "local access at " + hex(address) + " outside the thread's local memory");
      return;
    case InGeneric:
      if (in_params) {
        if (write) fault(700, "write to the kernel's parameters at " + hex(address));
        return;
      }
      if (in_depot) return;
      [[fallthrough]];
    case InGlobal:
      if (l.memory && !l.memory->accessible(address, bytes))
        fault(700, std::string(write ? "write" : "read") + " of " + std::to_string(bytes) + " bytes at " + hex(address) +
                       ", outside the device memory of the launch");
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Handlers. Each is a function of (thread, instruction); the templates are instantiated per type.

template <class T>
using U = std::make_unsigned_t<T>;

// Integer arithmetic computed in unsigned types (wrapping, never undefined).
template <class T>
struct IntOps {
  static void add(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(static_cast<U<T>>(rd<T>(t, i.a)) + static_cast<U<T>>(rd<T>(t, i.b))))); }
  static void sub(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(static_cast<U<T>>(rd<T>(t, i.a)) - static_cast<U<T>>(rd<T>(t, i.b))))); }
  static std::uint64_t lo(Thread& t, std::uint32_t a, std::uint32_t b) {
    return static_cast<std::uint64_t>(static_cast<U<T>>(rd<T>(t, a))) * static_cast<std::uint64_t>(static_cast<U<T>>(rd<T>(t, b)));
  }
  static void mul_lo(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(lo(t, i.a, i.b)))); }
  static void mad_lo(Thread& t, const Inst& i) {
    wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(lo(t, i.a, i.b) + static_cast<U<T>>(rd<T>(t, i.c)))));
  }
  static T hi(Thread& t, std::uint32_t a, std::uint32_t b) {
    constexpr int n = sizeof(T) * 8;
    if constexpr (n == 64) {
      using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return static_cast<T>(static_cast<W>(static_cast<W>(rd<T>(t, a)) * static_cast<W>(rd<T>(t, b))) >> 64);
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;
      return static_cast<T>((static_cast<W>(rd<T>(t, a)) * static_cast<W>(rd<T>(t, b))) >> n);
    }
  }
  static void mul_hi(Thread& t, const Inst& i) { wr<T>(t, i.d[0], hi(t, i.a, i.b)); }
  static void mad_hi(Thread& t, const Inst& i) {
    wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(static_cast<U<T>>(hi(t, i.a, i.b)) + static_cast<U<T>>(rd<T>(t, i.c)))));
  }
  // .wide: 16 -> 32 and 32 -> 64 bits
  using Wide = std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>,
                                  std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;
  static Wide wide(Thread& t, std::uint32_t a, std::uint32_t b) {
    return static_cast<Wide>(static_cast<std::int64_t>(rd<T>(t, a)) * static_cast<std::int64_t>(rd<T>(t, b)));
  }
  static void mul_wide(Thread& t, const Inst& i) {
    if constexpr (sizeof(T) == 4 && !std::is_signed_v<T>)
      wr<std::uint64_t>(t, i.d[0], static_cast<std::uint64_t>(rd<T>(t, i.a)) * static_cast<std::uint64_t>(rd<T>(t, i.b)));
    else
      wr<Wide>(t, i.d[0], wide(t, i.a, i.b));
  }
  static void mad_wide(Thread& t, const Inst& i) {
    using UW = std::make_unsigned_t<Wide>;
    UW p;
    if constexpr (sizeof(T) == 4 && !std::is_signed_v<T>)
      p = static_cast<UW>(static_cast<std::uint64_t>(rd<T>(t, i.a)) * static_cast<std::uint64_t>(rd<T>(t, i.b)));
    else
      p = static_cast<UW>(wide(t, i.a, i.b));
    wr<Wide>(t, i.d[0], static_cast<Wide>(static_cast<UW>(p + static_cast<UW>(rd<Wide>(t, i.c)))));
  }
  static void div(Thread& t, const Inst& i) {
    const T a = rd<T>(t, i.a), b = rd<T>(t, i.b);
    if (b == 0) fault(719, "integer division by zero");
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(0) - static_cast<U<T>>(a)));
    }
    wr<T>(t, i.d[0], static_cast<T>(a / b));
  }
  static void rem(Thread& t, const Inst& i) {
    const T a = rd<T>(t, i.a), b = rd<T>(t, i.b);
    if (b == 0) fault(719, "integer remainder by zero");
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return wr<T>(t, i.d[0], T{0});
    }
    wr<T>(t, i.d[0], static_cast<T>(a % b));
  }
  static void neg(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(static_cast<U<T>>(0) - static_cast<U<T>>(rd<T>(t, i.a)))); }
  static void abs(Thread& t, const Inst& i) {
    const T a = rd<T>(t, i.a);
    wr<T>(t, i.d[0], a < 0 ? static_cast<T>(static_cast<U<T>>(0) - static_cast<U<T>>(a)) : a);
  }
  static void min(Thread& t, const Inst& i) { wr<T>(t, i.d[0], std::min(rd<T>(t, i.a), rd<T>(t, i.b))); }
  static void max(Thread& t, const Inst& i) { wr<T>(t, i.d[0], std::max(rd<T>(t, i.a), rd<T>(t, i.b))); }
};

// Bitwise operations on .b16/.b32/.b64 (T unsigned) and .pred (T bool held as 0/1).
template <class T>
struct BitOps {
  static void and_(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(rd<T>(t, i.a) & rd<T>(t, i.b))); }
  static void or_(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(rd<T>(t, i.a) | rd<T>(t, i.b))); }
  static void xor_(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(rd<T>(t, i.a) ^ rd<T>(t, i.b))); }
  static void not_(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(~rd<T>(t, i.a))); }
  static void cnot(Thread& t, const Inst& i) { wr<T>(t, i.d[0], static_cast<T>(rd<T>(t, i.a) == 0 ? 1 : 0)); }
  // Shift counts are unsigned 32-bit; a count past the width acts as the width.
  static void shl(Thread& t, const Inst& i) {
    const std::uint32_t n = rd<std::uint32_t>(t, i.b);
    wr<T>(t, i.d[0], n >= sizeof(T) * 8 ? T{0} : static_cast<T>(rd<T>(t, i.a) << n));
  }
  static void shr(Thread& t, const Inst& i) {  // logical when T is unsigned, arithmetic when signed
    const std::uint32_t n = std::min<std::uint32_t>(rd<std::uint32_t>(t, i.b), sizeof(T) * 8 - (std::is_signed_v<T> ? 1 : 0));
    if constexpr (!std::is_signed_v<T>) {
      if (n >= sizeof(T) * 8) return wr<T>(t, i.d[0], T{0});
    }
    wr<T>(t, i.d[0], static_cast<T>(rd<T>(t, i.a) >> n));
  }
};
struct PredOps {
  static bool p(Thread& t, std::uint32_t s) { return (t.r[s] & 1u) != 0; }
  static void and_(Thread& t, const Inst& i) { t.r[i.d[0]] = p(t, i.a) && p(t, i.b); }
  static void or_(Thread& t, const Inst& i) { t.r[i.d[0]] = p(t, i.a) || p(t, i.b); }
  static void xor_(Thread& t, const Inst& i) { t.r[i.d[0]] = p(t, i.a) != p(t, i.b); }
  static void not_(Thread& t, const Inst& i) { t.r[i.d[0]] = !p(t, i.a); }
  static void mov(Thread& t, const Inst& i) { t.r[i.d[0]] = p(t, i.a); }
};

template <class F>
struct FloatOps {
  static void add(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(rd<F>(t, i.a) + rd<F>(t, i.b))); }
  static void sub(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(rd<F>(t, i.a) - rd<F>(t, i.b))); }
  static void mul(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(rd<F>(t, i.a) * rd<F>(t, i.b))); }
  static void div(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(rd<F>(t, i.a) / rd<F>(t, i.b))); }
  static void fma(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(std::fma(rd<F>(t, i.a), rd<F>(t, i.b), rd<F>(t, i.c)))); }
  static void sqrt(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(std::sqrt(rd<F>(t, i.a)))); }
  static void rcp(Thread& t, const Inst& i) { wr<F>(t, i.d[0], canon(F{1} / rd<F>(t, i.a))); }
  static void neg(Thread& t, const Inst& i) { wr<F>(t, i.d[0], -rd<F>(t, i.a)); }
  static void abs(Thread& t, const Inst& i) { wr<F>(t, i.d[0], std::fabs(rd<F>(t, i.a))); }
  // One NaN operand: the other operand; both: the canonical NaN; -0 is less than +0.
  static F pick(F a, F b, bool smaller) {
    if (std::isnan(a)) return std::isnan(b) ? canon(b) : b;
    if (std::isnan(b)) return a;
    if (a == b) return (std::signbit(a) == smaller) ? a : b;
    return (a < b) == smaller ? a : b;
  }
  static void min(Thread& t, const Inst& i) { wr<F>(t, i.d[0], pick(rd<F>(t, i.a), rd<F>(t, i.b), true)); }
  static void max(Thread& t, const Inst& i) { wr<F>(t, i.d[0], pick(rd<F>(t, i.a), rd<F>(t, i.b), false)); }
};

enum class Cmp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

template <class T, Cmp C>
void setp(Thread& t, const Inst& i) {
  const T a = rd<T>(t, i.a), b = rd<T>(t, i.b);
  bool r = false;
  if constexpr (std::is_floating_point_v<T>) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    switch (C) {
      case Cmp::Eq: r = !unordered && a == b; break;
      case Cmp::Ne: r = !unordered && a != b; break;
      case Cmp::Lt: r = !unordered && a < b; break;
      case Cmp::Le: r = !unordered && a <= b; break;
      case Cmp::Gt: r = !unordered && a > b; break;
      case Cmp::Ge: r = !unordered && a >= b; break;
      case Cmp::Equ: r = unordered || a == b; break;
      case Cmp::Neu: r = unordered || a != b; break;
      case Cmp::Ltu: r = unordered || a < b; break;
      case Cmp::Leu: r = unordered || a <= b; break;
      case Cmp::Gtu: r = unordered || a > b; break;
      case Cmp::Geu: r = unordered || a >= b; break;
      case Cmp::Num: r = !unordered; break;
      case Cmp::Nan: r = unordered; break;
      default: break;
    }
  } else {
    switch (C) {
      case Cmp::Eq: r = a == b; break;
      case Cmp::Ne: r = a != b; break;
      case Cmp::Lt: case Cmp::Lo: r = a < b; break;
      case Cmp::Le: case Cmp::Ls: r = a <= b; break;
      case Cmp::Gt: case Cmp::Hi: r = a > b; break;
      case Cmp::Ge: case Cmp::Hs: r = a >= b; break;
      default: break;
    }
  }
  t.r[i.d[0]] = r;
}

template <class T>
void selp(Thread& t, const Inst& i) {
  t.r[i.d[0]] = (t.r[i.c] & 1u) ? t.r[i.a] : t.r[i.b];
  if constexpr (sizeof(T) < 8) t.r[i.d[0]] = static_cast<std::uint64_t>(rd<T>(t, i.d[0])) & (~0ull >> (64 - sizeof(T) * 8));
}

template <class T>
void mov_t(Thread& t, const Inst& i) { wr<T>(t, i.d[0], rd<T>(t, i.a)); }
// mov.bN d, {a, b, ...}: elements packed, the first least significant.
void pack(Thread& t, const Inst& i) {
  const unsigned each = i.e;  // element bits
  std::uint64_t v = 0;
  const std::uint32_t src[4] = {i.a, i.b, i.c, i.offset > 0 ? static_cast<std::uint32_t>(i.offset) : 0};
  for (unsigned k = 0; k < i.count; ++k) {
    const std::uint64_t mask = each == 64 ? ~0ull : ((1ull << each) - 1);
    v |= (t.r[src[k]] & mask) << (k * each);
  }
  t.r[i.d[0]] = v;
}
void unpack(Thread& t, const Inst& i) {
  const unsigned each = i.e;
  const std::uint64_t v = t.r[i.a];
  const std::uint64_t mask = each == 64 ? ~0ull : ((1ull << each) - 1);
  for (unsigned k = 0; k < i.count; ++k) t.r[i.d[k]] = (v >> (k * each)) & mask;
}

template <class T>
void ld(Thread& t, const Inst& i) {
  const std::uint64_t address = t.r[i.a] + static_cast<std::uint64_t>(i.offset);
  check_access(t, address, sizeof(T) * i.count, i.space, false);
  for (unsigned k = 0; k < i.count; ++k) {
    T v;
    std::memcpy(&v, reinterpret_cast<const void*>(static_cast<std::uintptr_t>(address + k * sizeof(T))), sizeof(T));
    wr<T>(t, i.d[k], v);
  }
}
template <class T>
void st(Thread& t, const Inst& i) {
  const std::uint64_t address = t.r[i.a] + static_cast<std::uint64_t>(i.offset);
  check_access(t, address, sizeof(T) * i.count, i.space, true);
  for (unsigned k = 0; k < i.count; ++k) {
    const T v = rd<T>(t, i.d[k]);
    std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(address + k * sizeof(T))), &v, sizeof(T));
  }
}

enum class Atom : std::uint8_t { Add, Min, Max, Exch };

// atom.OP: the old value to d, the new one stored, as one indivisible step.
template <class T, Atom A>
void atom(Thread& t, const Inst& i) {
  const std::uint64_t address = t.r[i.a] + static_cast<std::uint64_t>(i.offset);
  check_access(t, address, sizeof(T), i.space, true);
  T* p = reinterpret_cast<T*>(static_cast<std::uintptr_t>(address));
  const T b = rd<T>(t, i.b);
  T old;
  if constexpr (A == Atom::Add) {
    old = __atomic_fetch_add(p, b, __ATOMIC_RELAXED);
  } else if constexpr (A == Atom::Exch) {
    old = __atomic_exchange_n(p, b, __ATOMIC_RELAXED);
  } else {
    old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (true) {
      const T want = A == Atom::Min ? std::min(old, b) : std::max(old, b);
      if (want == old || __atomic_compare_exchange_n(p, &old, want, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
    }
  }
  wr<T>(t, i.d[0], old);
}
template <Atom A>
Fn atom_for(Ty t) {
  switch (t) {
    case Ty::U32: case Ty::B32: return &atom<std::uint32_t, A>;
    case Ty::S32: return &atom<std::int32_t, A>;
    case Ty::U64: case Ty::B64: return &atom<std::uint64_t, A>;
    case Ty::S64: return &atom<std::int64_t, A>;
    default: return nullptr;
  }
}

void bra(Thread& t, const Inst& i) { t.pc = i.target; }
void ret(Thread& t, const Inst&) { t.pc = kDone; }

// prmt.b32 (default mode): result byte k is source byte (selector nibble k & 7) of the eight bytes
// of {b, a}, or that byte's sign replicated when the nibble's bit 3 is set.
void prmt(Thread& t, const Inst& i) {
  const std::uint64_t bytes = (static_cast<std::uint64_t>(rd<std::uint32_t>(t, i.b)) << 32) | rd<std::uint32_t>(t, i.a);
  const std::uint32_t sel = rd<std::uint32_t>(t, i.c);
  std::uint32_t r = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const unsigned s = (sel >> (4 * k)) & 0xF;
    std::uint32_t byte = static_cast<std::uint32_t>(bytes >> (8 * (s & 7))) & 0xFF;
    if (s & 8) byte = (byte & 0x80) ? 0xFF : 0;
    r |= byte << (8 * k);
  }
  wr<std::uint32_t>(t, i.d[0], r);
}

// dp2a.lo/.hi and dp4a: dot products of 16-bit halves with bytes (or bytes with bytes), plus c.
template <bool ASigned, bool BSigned, bool Hi>
void dp2a(Thread& t, const Inst& i) {
  const std::uint32_t a = rd<std::uint32_t>(t, i.a), b = rd<std::uint32_t>(t, i.b);
  auto half = [&](unsigned k) -> std::int64_t {
    const std::uint32_t h = (a >> (16 * k)) & 0xFFFF;
    return ASigned ? static_cast<std::int16_t>(h) : static_cast<std::int64_t>(h);
  };
  auto byte = [&](unsigned k) -> std::int64_t {
    const std::uint32_t v = (b >> (8 * k)) & 0xFF;
    return BSigned ? static_cast<std::int8_t>(v) : static_cast<std::int64_t>(v);
  };
  const unsigned base = Hi ? 2 : 0;
  const std::int64_t sum = half(0) * byte(base) + half(1) * byte(base + 1);
  wr<std::uint32_t>(t, i.d[0], static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum) + rd<std::uint32_t>(t, i.c)));
}
template <bool ASigned, bool BSigned>
void dp4a(Thread& t, const Inst& i) {
  const std::uint32_t a = rd<std::uint32_t>(t, i.a), b = rd<std::uint32_t>(t, i.b);
  std::int64_t sum = 0;
  for (unsigned k = 0; k < 4; ++k) {
    const std::uint32_t x = (a >> (8 * k)) & 0xFF, y = (b >> (8 * k)) & 0xFF;
    sum += (ASigned ? static_cast<std::int8_t>(x) : static_cast<std::int64_t>(x)) *
           (BSigned ? static_cast<std::int8_t>(y) : static_cast<std::int64_t>(y));
  }
  wr<std::uint32_t>(t, i.d[0], static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum) + rd<std::uint32_t>(t, i.c)));
}

// bfi.bN f, a, b, pos, len: b with bits [pos, pos + len) replaced by a's low bits.
template <class T>
void bfi(Thread& t, const Inst& i) {
  constexpr unsigned n = sizeof(T) * 8;
  const T a = rd<T>(t, i.a);
  T f = rd<T>(t, i.b);
  const unsigned pos = rd<std::uint32_t>(t, i.c) & 0xFF, len = rd<std::uint32_t>(t, i.e) & 0xFF;
  for (unsigned k = 0; k < len && pos + k < n; ++k) {
    const T bit = static_cast<T>(T{1} << (pos + k));
    f = static_cast<T>(((a >> k) & 1) ? (f | bit) : (f & ~bit));
  }
  wr<T>(t, i.d[0], f);
}
// bfe.{u,s}N d, a, pos, len: len bits of a from pos, zero- or sign-extended (the sign is the
// field's top bit, or a's top bit when the field runs past it).
template <class T>
void bfe(Thread& t, const Inst& i) {
  constexpr unsigned n = sizeof(T) * 8;
  using UT = U<T>;
  const UT a = static_cast<UT>(rd<T>(t, i.a));
  const unsigned pos = rd<std::uint32_t>(t, i.b) & 0xFF, len = rd<std::uint32_t>(t, i.c) & 0xFF;
  bool sbit = false;
  if (std::is_signed_v<T> && len != 0) sbit = (a >> std::min(pos + len - 1, n - 1)) & 1;
  UT d = 0;
  for (unsigned k = 0; k < n; ++k) {
    bool bit;
    if (k < len && pos + k < n) bit = (a >> (pos + k)) & 1;
    else bit = std::is_signed_v<T> ? sbit : false;
    if (bit) d = static_cast<UT>(d | (UT{1} << k));
  }
  wr<T>(t, i.d[0], static_cast<T>(d));
}

// ---- conversions

enum class Rnd : std::uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };

double round_int(double v, Rnd r) {
  switch (r) {
    case Rnd::Rni: return std::nearbyint(v);  // half to even in the default rounding mode
    case Rnd::Rzi: return std::trunc(v);
    case Rnd::Rmi: return std::floor(v);
    case Rnd::Rpi: return std::ceil(v);
    default: return v;
  }
}

// Integer to integer: the source chopped to its type, then extended or narrowed.
template <class D, class S>
void cvt_ii(Thread& t, const Inst& i) { wr<D>(t, i.d[0], static_cast<D>(rd<S>(t, i.a))); }

// Float to integer: rounded, then clamped to D's range; NaN gives 0, except for 64-bit
// destinations or .f64 sources, where it gives 1 << (N - 1).
template <class D, class S, Rnd R>
void cvt_fi(Thread& t, const Inst& i) {
  const S s = rd<S>(t, i.a);
  D out;
  if (std::isnan(s)) {
    out = (sizeof(D) == 8 || std::is_same_v<S, double>) ? static_cast<D>(U<D>{1} << (sizeof(D) * 8 - 1)) : D{0};
  } else {
    const double v = round_int(static_cast<double>(s), R);
    const double hi = std::ldexp(1.0, static_cast<int>(sizeof(D) * 8) - (std::is_signed_v<D> ? 1 : 0));
    const double lo = std::is_signed_v<D> ? -hi : 0.0;
    if (v >= hi) out = std::numeric_limits<D>::max();
    else if (v < lo) out = std::numeric_limits<D>::min();
    else out = static_cast<D>(v);
  }
  wr<D>(t, i.d[0], out);
}
// Integer to float, rounded to nearest even (a direct conversion rounds once).
template <class D, class S>
void cvt_if(Thread& t, const Inst& i) { wr<D>(t, i.d[0], static_cast<D>(rd<S>(t, i.a))); }
void cvt_f64_f32(Thread& t, const Inst& i) { wr<double>(t, i.d[0], canon(static_cast<double>(rd<float>(t, i.a)))); }
void cvt_f32_f64(Thread& t, const Inst& i) { wr<float>(t, i.d[0], canon(static_cast<float>(rd<double>(t, i.a)))); }
template <class F, Rnd R>
void cvt_ff_int(Thread& t, const Inst& i) {
  const F v = rd<F>(t, i.a);
  F r;
  switch (R) {
    case Rnd::Rni: r = std::nearbyint(v); break;
    case Rnd::Rzi: r = std::trunc(v); break;
    case Rnd::Rmi: r = std::floor(v); break;
    default: r = std::ceil(v); break;
  }
  wr<F>(t, i.d[0], canon(r));
}
template <class F>
void cvt_sat(Thread& t, const Inst& i) {  // cvt.sat.fN.fN: clamped to [0, 1], NaN to 0
  const F v = rd<F>(t, i.a);
  wr<F>(t, i.d[0], std::isnan(v) ? F{0} : std::min(F{1}, std::max(F{0}, v)));
}

// ---------------------------------------------------------------------------------------------
// Type dispatch: a handler template instantiated for the C++ type of a PTX type.

template <template <class> class H>
Fn by_int_type(Ty t) {
  switch (t) {
    case Ty::S16: return &H<std::int16_t>::f;
    case Ty::U16: case Ty::B16: return &H<std::uint16_t>::f;
    case Ty::S32: return &H<std::int32_t>::f;
    case Ty::U32: case Ty::B32: return &H<std::uint32_t>::f;
    case Ty::S64: return &H<std::int64_t>::f;
    case Ty::U64: case Ty::B64: return &H<std::uint64_t>::f;
    default: return nullptr;
  }
}

#define AUG_PTX_INT(NAME, EXPR)                 \
  template <class T>                            \
  struct NAME {                                 \
    static void f(Thread& t, const Inst& i) { EXPR(t, i); } \
  };
AUG_PTX_INT(HAdd, IntOps<T>::add)
AUG_PTX_INT(HSub, IntOps<T>::sub)
AUG_PTX_INT(HMulLo, IntOps<T>::mul_lo)
AUG_PTX_INT(HMulHi, IntOps<T>::mul_hi)
AUG_PTX_INT(HMadLo, IntOps<T>::mad_lo)
AUG_PTX_INT(HMadHi, IntOps<T>::mad_hi)
AUG_PTX_INT(HDiv, IntOps<T>::div)
AUG_PTX_INT(HRem, IntOps<T>::rem)
AUG_PTX_INT(HNeg, IntOps<T>::neg)
AUG_PTX_INT(HAbs, IntOps<T>::abs)
AUG_PTX_INT(HMin, IntOps<T>::min)
AUG_PTX_INT(HMax, IntOps<T>::max)
AUG_PTX_INT(HAnd, BitOps<T>::and_)
AUG_PTX_INT(HOr, BitOps<T>::or_)
AUG_PTX_INT(HXor, BitOps<T>::xor_)
AUG_PTX_INT(HNot, BitOps<T>::not_)
AUG_PTX_INT(HCnot, BitOps<T>::cnot)
AUG_PTX_INT(HShl, BitOps<T>::shl)
AUG_PTX_INT(HShr, BitOps<T>::shr)
AUG_PTX_INT(HSelp, selp<T>)
AUG_PTX_INT(HMov, mov_t<T>)
AUG_PTX_INT(HBfi, bfi<T>)
AUG_PTX_INT(HBfe, bfe<T>)
#undef AUG_PTX_INT

// A type for loads and stores (any 8..64-bit integer or float), by PTX type.
template <template <class> class H>
Fn by_mem_type(Ty t) {
  switch (t) {
    case Ty::S8: return &H<std::int8_t>::f;
    case Ty::U8: case Ty::B8: return &H<std::uint8_t>::f;
    case Ty::S16: return &H<std::int16_t>::f;
    case Ty::U16: case Ty::B16: case Ty::F16: return &H<std::uint16_t>::f;
    case Ty::S32: return &H<std::int32_t>::f;
    case Ty::U32: case Ty::B32: return &H<std::uint32_t>::f;
    case Ty::S64: return &H<std::int64_t>::f;
    case Ty::U64: case Ty::B64: return &H<std::uint64_t>::f;
    case Ty::F32: return &H<float>::f;
    case Ty::F64: return &H<double>::f;
    default: return nullptr;
  }
}
template <class T>
struct HLd {
  static void f(Thread& t, const Inst& i) { ld<T>(t, i); }
};
template <class T>
struct HSt {
  static void f(Thread& t, const Inst& i) { st<T>(t, i); }
};

template <Cmp C>
Fn setp_for(Ty t) {
  switch (t) {
    case Ty::S16: return &setp<std::int16_t, C>;
    case Ty::U16: case Ty::B16: return &setp<std::uint16_t, C>;
    case Ty::S32: return &setp<std::int32_t, C>;
    case Ty::U32: case Ty::B32: return &setp<std::uint32_t, C>;
    case Ty::S64: return &setp<std::int64_t, C>;
    case Ty::U64: case Ty::B64: return &setp<std::uint64_t, C>;
    case Ty::F32: return &setp<float, C>;
    case Ty::F64: return &setp<double, C>;
    default: return nullptr;
  }
}

template <class S>
Fn cvt_from_int(Ty d, Rnd r) {
  if (is_float(d)) {
    if (r != Rnd::Rn) return nullptr;
    return d == Ty::F32 ? &cvt_if<float, S> : &cvt_if<double, S>;
  }
  if (r != Rnd::None) return nullptr;
  switch (d) {
    case Ty::S8: return &cvt_ii<std::int8_t, S>;
    case Ty::U8: return &cvt_ii<std::uint8_t, S>;
    case Ty::S16: return &cvt_ii<std::int16_t, S>;
    case Ty::U16: return &cvt_ii<std::uint16_t, S>;
    case Ty::S32: return &cvt_ii<std::int32_t, S>;
    case Ty::U32: return &cvt_ii<std::uint32_t, S>;
    case Ty::S64: return &cvt_ii<std::int64_t, S>;
    case Ty::U64: return &cvt_ii<std::uint64_t, S>;
    default: return nullptr;
  }
}
template <class S, Rnd R>
Fn cvt_to_int(Ty d) {
  switch (d) {
    case Ty::S8: return &cvt_fi<std::int8_t, S, R>;
    case Ty::U8: return &cvt_fi<std::uint8_t, S, R>;
    case Ty::S16: return &cvt_fi<std::int16_t, S, R>;
    case Ty::U16: return &cvt_fi<std::uint16_t, S, R>;
    case Ty::S32: return &cvt_fi<std::int32_t, S, R>;
    case Ty::U32: return &cvt_fi<std::uint32_t, S, R>;
    case Ty::S64: return &cvt_fi<std::int64_t, S, R>;
    case Ty::U64: return &cvt_fi<std::uint64_t, S, R>;
    default: return nullptr;
  }
}
template <class S>
Fn cvt_float_to_int(Ty d, Rnd r) {
  switch (r) {
    case Rnd::Rni: return cvt_to_int<S, Rnd::Rni>(d);
    case Rnd::Rzi: return cvt_to_int<S, Rnd::Rzi>(d);
    case Rnd::Rmi: return cvt_to_int<S, Rnd::Rmi>(d);
    case Rnd::Rpi: return cvt_to_int<S, Rnd::Rpi>(d);
    default: return nullptr;
  }
}
template <class F>
Fn cvt_float_round(Rnd r) {
  switch (r) {
    case Rnd::Rni: return &cvt_ff_int<F, Rnd::Rni>;
    case Rnd::Rzi: return &cvt_ff_int<F, Rnd::Rzi>;
    case Rnd::Rmi: return &cvt_ff_int<F, Rnd::Rmi>;
    case Rnd::Rpi: return &cvt_ff_int<F, Rnd::Rpi>;
    default: return nullptr;
  }
}

Fn cvt_for(Ty d, Ty s, Rnd r, bool sat) {
  if (is_float(s) && is_float(d)) {
    if (sat) return (s == d && r == Rnd::None) ? (d == Ty::F32 ? &cvt_sat<float> : &cvt_sat<double>) : nullptr;
    if (s == Ty::F32 && d == Ty::F64) return r == Rnd::None ? &cvt_f64_f32 : nullptr;
    if (s == Ty::F64 && d == Ty::F32) return r == Rnd::Rn ? &cvt_f32_f64 : nullptr;
    return s == Ty::F32 ? cvt_float_round<float>(r) : cvt_float_round<double>(r);
  }
  if (is_float(s)) {  // float to integer: .sat is what conversions to integers do anyway
    if (!is_int(d)) return nullptr;
    return s == Ty::F32 ? cvt_float_to_int<float>(d, r) : cvt_float_to_int<double>(d, r);
  }
  if (sat || !is_int(s)) return nullptr;
  switch (s) {
    case Ty::S8: return cvt_from_int<std::int8_t>(d, r);
    case Ty::U8: case Ty::B8: return cvt_from_int<std::uint8_t>(d, r);
    case Ty::S16: return cvt_from_int<std::int16_t>(d, r);
    case Ty::U16: case Ty::B16: return cvt_from_int<std::uint16_t>(d, r);
    case Ty::S32: return cvt_from_int<std::int32_t>(d, r);
    case Ty::U32: case Ty::B32: return cvt_from_int<std::uint32_t>(d, r);
    case Ty::S64: return cvt_from_int<std::int64_t>(d, r);
    case Ty::U64: case Ty::B64: return cvt_from_int<std::uint64_t>(d, r);
    default: return nullptr;
  }
}

// ---------------------------------------------------------------------------------------------
// Reading kernels

struct Operand {
  enum Kind { Reg, Imm, Addr, Vec, Label } kind;
  std::string name;               // Reg, Addr base (a register or a symbol; empty: an absolute address), Label
  std::int64_t offset = 0;        // Addr
  std::uint64_t value = 0;        // Imm: the literal's bits
  bool float_literal = false;     // Imm written 0f / 0d
  std::vector<std::string> elems; // Vec
};

struct RawInst {
  std::string opcode;
  std::vector<Operand> operands;
  std::string guard;
  bool guard_neg = false;
  SourceLine where;
  std::string error;  // an operand that could not be read
};

struct KernelParts {
  std::string name;
  std::vector<Param> params;
  std::size_t param_bytes = 0;
  std::vector<std::string> unsupported;
};

struct RegInfo {
  std::uint32_t slot;
  Ty type;
};

class Reader {
 public:
  Reader(std::string_view text, std::string source) : source_(std::move(source)), toks_(tokenize(text, source_)) {
    for (std::size_t start = 0; start <= text.size();) {
      const std::size_t end = std::min(text.find('\n', start), text.size());
      std::string_view line = text.substr(start, end - start);
      const std::size_t first = line.find_first_not_of(" \t\r");
      const std::size_t last = line.find_last_not_of(" \t\r");
      lines_.emplace_back(first == std::string_view::npos ? std::string_view() : line.substr(first, last - first + 1));
      start = end + 1;
    }
  }

  void read(std::vector<KernelParts>& kernels, std::vector<std::shared_ptr<Code>>& codes,
            std::vector<std::vector<RawInst>>& raws, std::vector<std::unordered_map<std::string, RegInfo>>& regs,
            std::vector<std::unordered_map<std::string, std::uint32_t>>& labels) {
    while (peek().kind != Tok::End) {
      const Token& t = peek();
      if (t.kind == Tok::Newline) {
        next();
        continue;
      }
      if (t.kind != Tok::Word) fail(t, "expected a directive, found '" + t.text + "'");
      if (t.text == ".version" || t.text == ".target" || t.text == ".address_size") {
        skip_line();
      } else if (t.text == ".file") {
        next();
        const int n = std::stoi(expect_word("a file number").text);
        files_[n] = peek().kind == Tok::String ? next().text : std::string();
        skip_line();
      } else if (t.text == ".section") {
        skip_braced();
      } else if (t.text == ".pragma") {
        skip_statement();
      } else if (t.text == ".visible" || t.text == ".weak" || t.text == ".extern") {
        next();
      } else if (t.text == ".entry") {
        next();
        kernels.emplace_back();
        codes.push_back(std::make_shared<Code>());
        raws.emplace_back();
        regs.emplace_back();
        labels.emplace_back();
        read_entry(kernels.back(), *codes.back(), raws.back(), regs.back(), labels.back());
        codes.back()->files = files_;
      } else if (t.text == ".func") {
        // device functions: their callers' `call` is not executed; the body is skipped
        skip_braced();
      } else if (t.text == ".global" || t.text == ".const" || t.text == ".shared") {
        skip_statement();  // module variables: an instruction that names one is not executed
      } else {
        fail(t, "unexpected '" + t.text + "' at module level");
      }
    }
  }

 private:
  [[noreturn]] void fail(const Token& t, const std::string& what) const {
    throw ParseError(source_ + ":" + std::to_string(t.line) + ":" + std::to_string(t.col) + ": " + what);
  }
  const Token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool is(const Token& t, const char* text) const { return t.kind != Tok::Newline && t.kind != Tok::End && t.text == text; }
  const Token& expect(const char* text) {
    skip_newlines();
    if (!is(peek(), text)) fail(peek(), std::string("expected '") + text + "', found '" + describe(peek()) + "'");
    return next();
  }
  const Token& expect_word(const char* what) {
    skip_newlines();
    if (peek().kind != Tok::Word) fail(peek(), std::string("expected ") + what + ", found '" + describe(peek()) + "'");
    return next();
  }
  static std::string describe(const Token& t) {
    return t.kind == Tok::End ? "end of text" : t.kind == Tok::Newline ? "end of line" : t.text;
  }
  void skip_newlines() {
    while (peek().kind == Tok::Newline) next();
  }
  void skip_line() {
    while (peek().kind != Tok::Newline && peek().kind != Tok::End) next();
  }
  void skip_statement() {
    while (!is(peek(), ";")) {
      if (peek().kind == Tok::End) fail(peek(), "missing ';'");
      next();
    }
    next();
  }
  void skip_braced() {
    while (!is(peek(), "{")) {
      if (peek().kind == Tok::End) fail(peek(), "missing '{'");
      next();
    }
    int depth = 0;
    do {
      if (peek().kind == Tok::End) fail(peek(), "missing '}'");
      if (is(peek(), "{")) ++depth;
      if (is(peek(), "}")) --depth;
      next();
    } while (depth > 0);
  }
  std::size_t number(const Token& t) const {
    try {
      std::size_t used = 0;
      const unsigned long long v = std::stoull(t.text, &used, 0);
      if (used == t.text.size()) return v;
    } catch (const std::exception&) {
    }
    fail(t, "expected a number, found '" + t.text + "'");
  }

  void read_entry(KernelParts& k, Code& code, std::vector<RawInst>& raws, std::unordered_map<std::string, RegInfo>& regs,
                  std::unordered_map<std::string, std::uint32_t>& labels) {
    k.name = expect_word("the kernel's name").text;
    expect("(");
    skip_newlines();
    std::size_t offset = 0;
    while (!is(peek(), ")")) {
      expect(".param");
      std::size_t align = 0;
      Param p;
      if (is(peek(), ".align")) {
        next();
        align = number(expect_word("an alignment"));
      }
      const Token& type = expect_word("a parameter type");
      const Ty ty = type_of(std::string_view(type.text).substr(1));
      if (type.text.empty() || type.text[0] != '.' || ty == Ty::None || ty == Ty::Pred) fail(type, "unknown parameter type '" + type.text + "'");
      std::size_t size = static_cast<std::size_t>(std::max(bits_of(ty) / 8, 1));
      if (is(peek(), ".ptr")) {  // pointer attributes: the space and the pointee's alignment
        next();
        while (is(peek(), ".global") || is(peek(), ".const") || is(peek(), ".shared") || is(peek(), ".local")) next();
        if (is(peek(), ".align")) {
          next();
          number(expect_word("an alignment"));
        }
      }
      p.name = expect_word("a parameter name").text;
      if (is(peek(), "[")) {
        next();
        size *= number(expect_word("an array size"));
        expect("]");
      }
      if (align == 0) align = static_cast<std::size_t>(std::max(bits_of(ty) / 8, 1));
      offset = (offset + align - 1) / align * align;
      p.offset = offset;
      p.size = size;
      p.align = align;
      offset += size;
      k.params.push_back(p);
      skip_newlines();
      if (is(peek(), ",")) {
        next();
        skip_newlines();
      }
    }
    next();  // ')'
    k.param_bytes = offset;
    // performance directives (.maxntid and the like) until the body
    while (!is(peek(), "{")) {
      if (peek().kind == Tok::End) fail(peek(), "missing the body of kernel " + k.name);
      next();
    }
    next();

    std::uint32_t slots = kSpecials;
    auto declare = [&](const std::string& name, Ty ty, const Token& at) {
      if (regs.count(name)) fail(at, "register " + name + " declared twice");
      regs[name] = RegInfo{slots++, ty};
    };
    for (const Param& p : k.params) declare(p.name, Ty::B64, peek());
    for (std::size_t n = 0; n < k.params.size(); ++n) code.param_slots.push_back({regs[k.params[n].name].slot, k.params[n].offset});

    int depth = 1;
    int file = 0, line = 0;
    while (true) {
      skip_newlines();
      const Token& t = peek();
      if (t.kind == Tok::End) fail(t, "missing '}' at the end of kernel " + k.name);
      if (is(t, "}")) {
        next();
        if (--depth == 0) break;
        continue;
      }
      if (is(t, "{")) {
        next();
        ++depth;
        continue;
      }
      if (t.kind == Tok::Word && t.text == ".loc") {
        next();
        file = static_cast<int>(number(expect_word("a file number")));
        line = static_cast<int>(number(expect_word("a line number")));
        skip_line();
        continue;
      }
      if (t.kind == Tok::Word && t.text == ".pragma") {
        skip_statement();
        continue;
      }
      if (t.kind == Tok::Word && t.text == ".reg") {
        next();
        const Token& type = expect_word("a register type");
        const Ty ty = type_of(std::string_view(type.text).substr(1));
        if (ty == Ty::None) fail(type, "unknown register type '" + type.text + "'");
        while (true) {
          const Token& name = expect_word("a register name");
          if (is(peek(), "<")) {
            next();
            const std::size_t n = number(expect_word("a register count"));
            expect(">");
            for (std::size_t r = 0; r < n; ++r) declare(name.text + std::to_string(r), ty, name);
          } else {
            declare(name.text, ty, name);
          }
          if (is(peek(), ",")) {
            next();
            continue;
          }
          break;
        }
        expect(";");
        continue;
      }
      if (t.kind == Tok::Word && t.text == ".local") {
        next();
        std::size_t align = 1;
        if (is(peek(), ".align")) {
          next();
          align = number(expect_word("an alignment"));
        }
        const Token& type = expect_word("a type");
        const Ty ty = type_of(std::string_view(type.text).substr(1));
        if (ty == Ty::None) fail(type, "unknown type '" + type.text + "'");
        const std::string name = expect_word("a name").text;
        std::size_t size = static_cast<std::size_t>(std::max(bits_of(ty) / 8, 1));
        if (is(peek(), "[")) {
          next();
          size *= number(expect_word("an array size"));
          expect("]");
        }
        expect(";");
        code.depot_bytes = (code.depot_bytes + align - 1) / align * align;
        declare(name, Ty::B64, t);
        code.local_slots.push_back({regs[name].slot, code.depot_bytes});
        code.depot_bytes += size;
        code.depot_align = std::max(code.depot_align, align);
        continue;
      }
      if (t.kind == Tok::Word && (t.text == ".shared" || t.text == ".const" || t.text == ".global")) {
        k.unsupported.push_back("line " + std::to_string(t.line) + ": " + t.text + " variable (not supported)");
        skip_statement();
        continue;
      }
      if (t.kind == Tok::Word && is(peek(1), ":")) {
        labels[t.text] = static_cast<std::uint32_t>(raws.size());
        next();
        next();
        continue;
      }
      RawInst ri;
      ri.where = SourceLine{t.line, line_text(t.line), file, line};
      if (is(t, "@")) {
        next();
        if (is(peek(), "!")) {
          next();
          ri.guard_neg = true;
        }
        ri.guard = expect_word("a predicate").text;
      }
      ri.opcode = expect_word("an instruction").text;
      read_operands(ri);
      raws.push_back(std::move(ri));
    }
    code.initial.assign(slots, 0);
  }

  // The statement's line as written, for messages.
  std::string line_text(int line) const {
    if (line < 1 || static_cast<std::size_t>(line) > lines_.size()) return std::string();
    std::string s(lines_[static_cast<std::size_t>(line) - 1]);
    for (char& c : s)
      if (c == '\t') c = ' ';
    return s;
  }

  void read_operands(RawInst& ri) {
    while (true) {
      skip_newlines();
      if (is(peek(), ";")) {
        next();
        return;
      }
      if (peek().kind == Tok::End) fail(peek(), "missing ';'");
      Operand o{Operand::Reg, {}, 0, 0, false, {}};
      if (is(peek(), "[")) {
        next();
        o.kind = Operand::Addr;
        if (peek().kind == Tok::Word && !std::isdigit(static_cast<unsigned char>(peek().text[0]))) o.name = next().text;
        else o.offset = signed_number();
        if (is(peek(), "+")) {
          next();
          o.offset += signed_number();
        } else if (is(peek(), "-")) {
          o.offset += signed_number();
        }
        expect("]");
      } else if (is(peek(), "{")) {
        next();
        o.kind = Operand::Vec;
        while (!is(peek(), "}")) {
          o.elems.push_back(expect_word("a register").text);
          if (is(peek(), ",")) next();
        }
        next();
      } else if (is(peek(), "-") || (peek().kind == Tok::Word && std::isdigit(static_cast<unsigned char>(peek().text[0])))) {
        o.kind = Operand::Imm;
        const Token& at = peek();
        const bool minus = is(peek(), "-");
        if (minus) next();
        const std::string& s = expect_word("a number").text;
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
          const std::size_t digits = (s[1] == 'f' || s[1] == 'F') ? 8 : 16;
          if (s.size() != digits + 2 || minus) fail(at, "bad floating-point literal '" + s + "'");
          o.value = std::stoull(s.substr(2), nullptr, 16);
          o.float_literal = true;
        } else {
          Token copy = at;
          copy.text = s;
          std::uint64_t v;
          if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) v = std::stoull(s.substr(2), nullptr, 16);
          else v = static_cast<std::uint64_t>(number(copy));
          o.value = minus ? static_cast<std::uint64_t>(0) - v : v;
        }
      } else {
        const Token& w = expect_word("an operand");
        o.name = w.text;
        o.kind = Operand::Reg;  // a register, a special register, a symbol or a label; decided later
      }
      ri.operands.push_back(std::move(o));
      skip_newlines();
      if (is(peek(), ",")) next();
      else if (!is(peek(), ";")) fail(peek(), "expected ',' or ';', found '" + describe(peek()) + "'");
    }
  }

  std::int64_t signed_number() {
    bool minus = false;
    if (is(peek(), "-")) {
      next();
      minus = true;
    }
    const Token& t = expect_word("a number");
    const auto v = static_cast<std::int64_t>(number(t));
    return minus ? -v : v;
  }

  std::string source_;
  std::vector<std::string_view> lines_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  std::map<int, std::string> files_;
};

// ---------------------------------------------------------------------------------------------
// Decoding

struct Unsupported {
  std::string why;
};

class Decoder {
 public:
  Decoder(Code& code, const std::unordered_map<std::string, RegInfo>& regs, const std::unordered_map<std::string, std::uint32_t>& labels)
      : code_(code), regs_(regs), labels_(labels) {}

  Inst decode(const RawInst& r, std::uint32_t source) {
    Inst in;
    in.source = source;
    if (!r.guard.empty()) {
      const auto it = regs_.find(r.guard);
      if (it == regs_.end() || it->second.type != Ty::Pred) throw Unsupported{"guard " + r.guard + " is not a predicate register"};
      in.guard = static_cast<std::int32_t>(it->second.slot);
      in.guard_neg = r.guard_neg;
    }
    std::vector<std::string> parts;
    {
      std::size_t start = 0;
      const std::string& s = r.opcode;
      while (start <= s.size()) {
        const std::size_t dot = s.find('.', start);
        parts.push_back(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
    }
    const std::string op = parts[0];
    std::vector<std::string> mods(parts.begin() + 1, parts.end());
    const auto& ops = r.operands;
    auto need = [&](std::size_t n) {
      if (ops.size() != n) throw Unsupported{"expected " + std::to_string(n) + " operands"};
    };
    auto take = [&](const std::string& m) {
      const auto it = std::find(mods.begin(), mods.end(), m);
      if (it == mods.end()) return false;
      mods.erase(it);
      return true;
    };
    auto type_at_end = [&]() {
      if (mods.empty()) throw Unsupported{"no type"};
      const Ty t = type_of(mods.back());
      if (t == Ty::None) throw Unsupported{"unknown type ." + mods.back()};
      mods.pop_back();
      return t;
    };
    auto done = [&]() {
      if (!mods.empty()) throw Unsupported{"modifier ." + mods.front() + " is not supported"};
    };
    auto fn = [&](Fn f) {
      if (!f) throw Unsupported{"this type is not supported"};
      in.fn = f;
    };

    if (op == "bra") {
      take("uni");
      done();
      need(1);
      const auto it = labels_.find(ops[0].name);
      if (ops[0].kind != Operand::Reg || it == labels_.end()) throw Unsupported{"unknown label " + ops[0].name};
      in.target = it->second;
      in.fn = &bra;
      return in;
    }
    if (op == "ret" || op == "exit") {
      take("uni");
      done();
      need(0);
      in.fn = &ret;
      return in;
    }
    if (op == "add" || op == "sub" || op == "mul" || op == "div" || op == "min" || op == "max" || op == "rem") {
      const Ty t = type_at_end();
      if (is_float(t)) {
        const bool rn = take("rn");
        if (op == "min" || op == "max" || op == "rem" ? rn : false) throw Unsupported{"rounding on min/max"};
        if (take("rz") || take("rm") || take("rp") || take("ftz") || take("sat") || take("approx") || take("full"))
          throw Unsupported{"only round-to-nearest IEEE arithmetic without .ftz/.sat is supported"};
        done();
        need(3);
        dst(in, ops[0], t);
        in.a = src(ops[1], t);
        in.b = src(ops[2], t);
        const bool f32 = t == Ty::F32;
        if (op == "add") in.fn = f32 ? &FloatOps<float>::add : &FloatOps<double>::add;
        else if (op == "sub") in.fn = f32 ? &FloatOps<float>::sub : &FloatOps<double>::sub;
        else if (op == "mul") in.fn = f32 ? &FloatOps<float>::mul : &FloatOps<double>::mul;
        else if (op == "div") in.fn = f32 ? &FloatOps<float>::div : &FloatOps<double>::div;
        else if (op == "min") in.fn = f32 ? &FloatOps<float>::min : &FloatOps<double>::min;
        else if (op == "max") in.fn = f32 ? &FloatOps<float>::max : &FloatOps<double>::max;
        else throw Unsupported{"rem of a float type"};
        return in;
      }
      if (!is_int(t) || bits_of(t) < 16) throw Unsupported{"type"};
      need(3);
      Ty dt = t;
      if (op == "mul") {
        if (take("lo")) fn(by_int_type<HMulLo>(t));
        else if (take("hi")) fn(by_int_type<HMulHi>(t));
        else if (take("wide")) {
          if (bits_of(t) == 64) throw Unsupported{"mul.wide of 64-bit values"};
          in.fn = wide_mul(t);
          dt = widen(t);
        } else throw Unsupported{"mul needs .lo, .hi or .wide"};
      } else if (op == "add") fn(by_int_type<HAdd>(t));
      else if (op == "sub") fn(by_int_type<HSub>(t));
      else if (op == "div") fn(by_int_type<HDiv>(t));
      else if (op == "rem") fn(by_int_type<HRem>(t));
      else if (op == "min") fn(by_int_type<HMin>(t));
      else fn(by_int_type<HMax>(t));
      if (take("sat") || take("cc")) throw Unsupported{"saturating or carry arithmetic"};
      done();
      dst(in, ops[0], dt);
      in.a = src(ops[1], t);
      in.b = src(ops[2], t);
      return in;
    }
    if (op == "mad") {
      const Ty t = type_at_end();
      if (is_float(t)) throw Unsupported{"mad on floats (use fma)"};
      if (!is_int(t) || bits_of(t) < 16) throw Unsupported{"type"};
      need(4);
      Ty dt = t;
      if (take("lo")) fn(by_int_type<HMadLo>(t));
      else if (take("hi")) fn(by_int_type<HMadHi>(t));
      else if (take("wide")) {
        if (bits_of(t) == 64) throw Unsupported{"mad.wide of 64-bit values"};
        in.fn = wide_mad(t);
        dt = widen(t);
      } else throw Unsupported{"mad needs .lo, .hi or .wide"};
      done();
      dst(in, ops[0], dt);
      in.a = src(ops[1], t);
      in.b = src(ops[2], t);
      in.c = src(ops[3], dt);
      return in;
    }
    if (op == "fma") {
      const Ty t = type_at_end();
      if (!take("rn") || !is_float(t)) throw Unsupported{"only fma.rn.f32 and fma.rn.f64"};
      done();
      need(4);
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      in.b = src(ops[2], t);
      in.c = src(ops[3], t);
      in.fn = t == Ty::F32 ? &FloatOps<float>::fma : &FloatOps<double>::fma;
      return in;
    }
    if (op == "sqrt" || op == "rcp") {
      const Ty t = type_at_end();
      if (!take("rn") || !is_float(t)) throw Unsupported{"only IEEE round-to-nearest sqrt.rn and rcp.rn"};
      done();
      need(2);
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      if (op == "sqrt") in.fn = t == Ty::F32 ? &FloatOps<float>::sqrt : &FloatOps<double>::sqrt;
      else in.fn = t == Ty::F32 ? &FloatOps<float>::rcp : &FloatOps<double>::rcp;
      return in;
    }
    if (op == "neg" || op == "abs") {
      const Ty t = type_at_end();
      done();
      need(2);
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      if (is_float(t)) {
        if (op == "neg") in.fn = t == Ty::F32 ? &FloatOps<float>::neg : &FloatOps<double>::neg;
        else in.fn = t == Ty::F32 ? &FloatOps<float>::abs : &FloatOps<double>::abs;
      } else {
        if (!is_signed(t) || bits_of(t) < 16) throw Unsupported{"neg/abs need a signed type"};
        fn(op == "neg" ? by_int_type<HNeg>(t) : by_int_type<HAbs>(t));
      }
      return in;
    }
    if (op == "and" || op == "or" || op == "xor" || op == "not" || op == "cnot") {
      const Ty t = type_at_end();
      done();
      const bool unary = op == "not" || op == "cnot";
      need(unary ? 2 : 3);
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      if (!unary) in.b = src(ops[2], t);
      if (t == Ty::Pred) {
        if (op == "and") in.fn = &PredOps::and_;
        else if (op == "or") in.fn = &PredOps::or_;
        else if (op == "xor") in.fn = &PredOps::xor_;
        else if (op == "not") in.fn = &PredOps::not_;
        else throw Unsupported{"cnot.pred"};
        return in;
      }
      if (bits_of(t) < 16 || is_float(t)) throw Unsupported{"type"};
      const Ty u = unsigned_of(t);
      if (op == "and") fn(by_int_type<HAnd>(u));
      else if (op == "or") fn(by_int_type<HOr>(u));
      else if (op == "xor") fn(by_int_type<HXor>(u));
      else if (op == "not") fn(by_int_type<HNot>(u));
      else fn(by_int_type<HCnot>(u));
      return in;
    }
    if (op == "shl" || op == "shr") {
      const Ty t = type_at_end();
      done();
      need(3);
      if (bits_of(t) < 16 || !is_int(t)) throw Unsupported{"type"};
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      in.b = src(ops[2], Ty::U32);
      if (op == "shl") fn(by_int_type<HShl>(unsigned_of(t)));
      else fn(by_int_type<HShr>(is_signed(t) ? t : unsigned_of(t)));
      return in;
    }
    if (op == "setp") {
      const Ty t = type_at_end();
      take("ftz") ? throw Unsupported{".ftz"} : void();
      if (mods.size() != 1) throw Unsupported{"setp needs one comparison (no boolean operation)"};
      const std::string cmp = mods[0];
      mods.clear();
      if (ops.size() != 3) throw Unsupported{"setp with two destinations or a boolean operation"};
      if (ops[0].kind != Operand::Reg || !is_pred(ops[0].name)) throw Unsupported{"setp's destination must be a predicate"};
      dst(in, ops[0], Ty::Pred);
      in.a = src(ops[1], t);
      in.b = src(ops[2], t);
      if ((t == Ty::B16 || t == Ty::B32 || t == Ty::B64) && cmp != "eq" && cmp != "ne") throw Unsupported{"bit types compare eq/ne only"};
      if (is_float(t) && (cmp == "lo" || cmp == "ls" || cmp == "hi" || cmp == "hs")) throw Unsupported{"unsigned comparison of floats"};
      if (!is_float(t) && cmp.size() >= 3 && cmp != "num" && cmp != "nan" && cmp.back() == 'u') throw Unsupported{"unordered comparison of integers"};
      if (!is_float(t) && (cmp == "num" || cmp == "nan")) throw Unsupported{"num/nan of integers"};
      fn(setp_fn(cmp, t));
      return in;
    }
    if (op == "selp") {
      const Ty t = type_at_end();
      done();
      need(4);
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      in.b = src(ops[2], t);
      in.c = src(ops[3], Ty::Pred);
      if (is_float(t)) in.fn = t == Ty::F32 ? &selp<std::uint32_t> : &selp<std::uint64_t>;
      else if (bits_of(t) >= 16) fn(by_int_type<HSelp>(unsigned_of(t)));
      else throw Unsupported{"type"};
      return in;
    }
    if (op == "mov") {
      const Ty t = type_at_end();
      done();
      need(2);
      if (ops[0].kind == Operand::Vec || ops[1].kind == Operand::Vec) {  // pack / unpack
        const Operand& v = ops[0].kind == Operand::Vec ? ops[0] : ops[1];
        const unsigned n = static_cast<unsigned>(v.elems.size());
        if ((n != 2 && n != 4) || bits_of(t) < 32 || (t != Ty::B32 && t != Ty::B64)) throw Unsupported{"pack/unpack form"};
        in.count = static_cast<std::uint8_t>(n);
        in.e = static_cast<std::uint32_t>(bits_of(t)) / n;
        if (ops[0].kind == Operand::Vec) {
          for (unsigned k = 0; k < n; ++k) in.d[k] = reg(v.elems[k]);
          in.a = src(ops[1], t);
          in.fn = &unpack;
        } else {
          dst(in, ops[0], t);
          std::uint32_t s[4] = {};
          for (unsigned k = 0; k < n; ++k) s[k] = reg(v.elems[k]);
          in.a = s[0];
          in.b = s[1];
          in.c = s[2];
          in.offset = s[3];
          in.fn = &pack;
        }
        return in;
      }
      dst(in, ops[0], t);
      if (t == Ty::Pred) {
        in.a = src(ops[1], t);
        in.fn = &PredOps::mov;
        return in;
      }
      in.a = src(ops[1], t);
      if (is_float(t)) in.fn = t == Ty::F32 ? &HMov<std::uint32_t>::f : &HMov<std::uint64_t>::f;
      else if (bits_of(t) >= 16) fn(by_int_type<HMov>(unsigned_of(t)));
      else throw Unsupported{"type"};
      return in;
    }
    if (op == "cvta") {
      const Ty t = type_at_end();
      take("to");
      const bool spaced = take("global") || take("param") || take("local") || take("shared") || take("const");
      done();
      need(2);
      if (!spaced || (t != Ty::U64 && t != Ty::B64)) throw Unsupported{"cvta form"};
      if (r.opcode.find("shared") != std::string::npos || r.opcode.find("const") != std::string::npos) throw Unsupported{"shared/const memory"};
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      in.fn = &HMov<std::uint64_t>::f;  // one flat address space
      return in;
    }
    if (op == "cvt") {
      if (mods.size() < 2) throw Unsupported{"cvt needs two types"};
      const Ty s = type_at_end();
      const Ty d = type_at_end();
      Rnd rnd = Rnd::None;
      static const std::pair<const char*, Rnd> modes[] = {{"rn", Rnd::Rn},   {"rz", Rnd::Rz},   {"rm", Rnd::Rm},   {"rp", Rnd::Rp},
                                                          {"rni", Rnd::Rni}, {"rzi", Rnd::Rzi}, {"rmi", Rnd::Rmi}, {"rpi", Rnd::Rpi}};
      for (const auto& [name, mode] : modes)
        if (take(name)) rnd = mode;
      const bool sat = take("sat");
      if (take("ftz")) throw Unsupported{".ftz"};
      done();
      need(2);
      fn(cvt_for(d, s, rnd, sat));
      dst(in, ops[0], d);
      in.a = src(ops[1], s);
      return in;
    }
    if (op == "ld" || op == "st") {
      const Ty t = type_at_end();
      in.count = 1;
      if (take("v2")) in.count = 2;
      else if (take("v4")) in.count = 4;
      if (take("global")) in.space = InGlobal;
      else if (take("local")) in.space = InLocal;
      else if (take("param")) in.space = InParam;
      else if (take("shared") || take("const")) throw Unsupported{"shared and constant memory are not supported"};
      for (const char* q : {"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "weak", "relaxed", "gpu", "cta", "sys"}) take(q);
      if (take("volatile")) {}
      done();
      need(2);
      const Operand& data = op == "ld" ? ops[0] : ops[1];
      const Operand& addr = op == "ld" ? ops[1] : ops[0];
      if (addr.kind != Operand::Addr) throw Unsupported{"the address operand must be [..]"};
      address(in, addr);
      if (in.count == 1) {
        if (data.kind != Operand::Reg && !(op == "st" && data.kind == Operand::Imm)) throw Unsupported{"data operand"};
        if (op == "ld") dst(in, data, t);
        else in.d[0] = src(data, t);
      } else {
        if (data.kind != Operand::Vec || data.elems.size() != in.count) throw Unsupported{"vector operand size"};
        for (unsigned k = 0; k < in.count; ++k) in.d[k] = reg(data.elems[k]);
      }
      fn(op == "ld" ? by_mem_type<HLd>(t) : by_mem_type<HSt>(t));
      return in;
    }
    if (op == "atom") {
      const Ty t = type_at_end();
      in.space = take("global") ? InGlobal : InGeneric;
      for (const char* q : {"relaxed", "gpu"}) take(q);
      if (take("add")) fn(atom_for<Atom::Add>(t));
      else if (take("min")) fn(atom_for<Atom::Min>(t));
      else if (take("max")) fn(atom_for<Atom::Max>(t));
      else if (take("exch")) fn(atom_for<Atom::Exch>(t));
      else throw Unsupported{"only atom.add, .min, .max and .exch are supported"};
      if ((t == Ty::B32 || t == Ty::B64) && in.fn != atom_for<Atom::Exch>(t)) throw Unsupported{"bit types only for exch"};
      done();
      need(3);
      dst(in, ops[0], t);
      if (ops[1].kind != Operand::Addr) throw Unsupported{"address"};
      address(in, ops[1]);
      in.b = src(ops[2], t);
      return in;
    }
    if (op == "prmt") {
      const Ty t = type_at_end();
      done();
      need(4);
      if (t != Ty::B32) throw Unsupported{"prmt modes other than the default"};
      dst(in, ops[0], t);
      in.a = src(ops[1], t);
      in.b = src(ops[2], t);
      in.c = src(ops[3], t);
      in.fn = &prmt;
      return in;
    }
    if (op == "dp2a" || op == "dp4a") {
      const Ty bt = type_at_end();
      const Ty at = type_at_end();
      const bool hi = op == "dp2a" && take("hi");
      if (op == "dp2a" && !hi && !take("lo")) throw Unsupported{"dp2a needs .lo or .hi"};
      done();
      need(4);
      if ((at != Ty::U32 && at != Ty::S32) || (bt != Ty::U32 && bt != Ty::S32)) throw Unsupported{"types"};
      dst(in, ops[0], Ty::U32);
      in.a = src(ops[1], Ty::U32);
      in.b = src(ops[2], Ty::U32);
      in.c = src(ops[3], Ty::U32);
      const bool as = at == Ty::S32, bs = bt == Ty::S32;
      if (op == "dp4a") in.fn = as ? (bs ? &dp4a<true, true> : &dp4a<true, false>) : (bs ? &dp4a<false, true> : &dp4a<false, false>);
      else if (hi) in.fn = as ? (bs ? &dp2a<true, true, true> : &dp2a<true, false, true>) : (bs ? &dp2a<false, true, true> : &dp2a<false, false, true>);
      else in.fn = as ? (bs ? &dp2a<true, true, false> : &dp2a<true, false, false>) : (bs ? &dp2a<false, true, false> : &dp2a<false, false, false>);
      return in;
    }
    if (op == "bfi" || op == "bfe") {
      const Ty t = type_at_end();
      done();
      if (bits_of(t) < 32 || !is_int(t)) throw Unsupported{"type"};
      dst(in, ops[0], t);
      if (op == "bfi") {
        need(5);
        in.a = src(ops[1], t);
        in.b = src(ops[2], t);
        in.c = src(ops[3], Ty::U32);
        in.e = src(ops[4], Ty::U32);
        fn(by_int_type<HBfi>(unsigned_of(t)));
      } else {
        need(4);
        in.a = src(ops[1], t);
        in.b = src(ops[2], Ty::U32);
        in.c = src(ops[3], Ty::U32);
        fn(by_int_type<HBfe>(t));
      }
      return in;
    }
    throw Unsupported{"the interpreter does not execute '" + op + "'"};
  }

 private:
  static Ty unsigned_of(Ty t) {
    switch (bits_of(t)) {
      case 16: return Ty::U16;
      case 32: return Ty::U32;
      default: return Ty::U64;
    }
  }
  static Ty widen(Ty t) {
    if (t == Ty::S16) return Ty::S32;
    if (t == Ty::U16) return Ty::U32;
    if (t == Ty::S32) return Ty::S64;
    return Ty::U64;
  }
  template <class T>
  struct HMulWide {
    static void f(Thread& t, const Inst& i) { IntOps<T>::mul_wide(t, i); }
  };
  template <class T>
  struct HMadWide {
    static void f(Thread& t, const Inst& i) { IntOps<T>::mad_wide(t, i); }
  };
  static Fn wide_mul(Ty t) { return by_int_type<HMulWide>(t); }
  static Fn wide_mad(Ty t) { return by_int_type<HMadWide>(t); }

  static Fn setp_fn(const std::string& c, Ty t) {
    static const std::pair<const char*, Cmp> cmps[] = {
        {"eq", Cmp::Eq},   {"ne", Cmp::Ne},   {"lt", Cmp::Lt},   {"le", Cmp::Le},   {"gt", Cmp::Gt},   {"ge", Cmp::Ge},
        {"lo", Cmp::Lo},   {"ls", Cmp::Ls},   {"hi", Cmp::Hi},   {"hs", Cmp::Hs},   {"equ", Cmp::Equ}, {"neu", Cmp::Neu},
        {"ltu", Cmp::Ltu}, {"leu", Cmp::Leu}, {"gtu", Cmp::Gtu}, {"geu", Cmp::Geu}, {"num", Cmp::Num}, {"nan", Cmp::Nan}};
    for (const auto& [name, cmp] : cmps) {
      if (c != name) continue;
      switch (cmp) {
        case Cmp::Eq: return setp_for<Cmp::Eq>(t);
        case Cmp::Ne: return setp_for<Cmp::Ne>(t);
        case Cmp::Lt: return setp_for<Cmp::Lt>(t);
        case Cmp::Le: return setp_for<Cmp::Le>(t);
        case Cmp::Gt: return setp_for<Cmp::Gt>(t);
        case Cmp::Ge: return setp_for<Cmp::Ge>(t);
        case Cmp::Lo: return setp_for<Cmp::Lo>(t);
        case Cmp::Ls: return setp_for<Cmp::Ls>(t);
        case Cmp::Hi: return setp_for<Cmp::Hi>(t);
        case Cmp::Hs: return setp_for<Cmp::Hs>(t);
        case Cmp::Equ: return setp_for<Cmp::Equ>(t);
        case Cmp::Neu: return setp_for<Cmp::Neu>(t);
        case Cmp::Ltu: return setp_for<Cmp::Ltu>(t);
        case Cmp::Leu: return setp_for<Cmp::Leu>(t);
        case Cmp::Gtu: return setp_for<Cmp::Gtu>(t);
        case Cmp::Geu: return setp_for<Cmp::Geu>(t);
        case Cmp::Num: return setp_for<Cmp::Num>(t);
        case Cmp::Nan: return setp_for<Cmp::Nan>(t);
      }
    }
    throw Unsupported{"unknown comparison ." + c};
  }

  bool is_pred(const std::string& name) const {
    const auto it = regs_.find(name);
    return it != regs_.end() && it->second.type == Ty::Pred;
  }

  std::uint32_t reg(const std::string& name) const {
    static const std::pair<const char*, std::uint32_t> specials[] = {
        {"%tid.x", TidX},    {"%tid.y", TidY},    {"%tid.z", TidZ},    {"%ntid.x", NtidX},   {"%ntid.y", NtidY},   {"%ntid.z", NtidZ},
        {"%ctaid.x", CtaX},  {"%ctaid.y", CtaY},  {"%ctaid.z", CtaZ},  {"%nctaid.x", NctaX}, {"%nctaid.y", NctaY}, {"%nctaid.z", NctaZ}};
    for (const auto& [n, slot] : specials)
      if (name == n) return slot;
    const auto it = regs_.find(name);
    if (it == regs_.end()) throw Unsupported{"unknown register or symbol " + name};
    return it->second.slot;
  }

  std::uint32_t constant(std::uint64_t bits) {
    const auto it = constants_.find(bits);
    if (it != constants_.end()) return it->second;
    const auto slot = static_cast<std::uint32_t>(code_.initial.size());
    code_.initial.push_back(bits);
    constants_[bits] = slot;
    return slot;
  }

  // A source operand of type t: a register, or an immediate in a constant slot. Decimal integers
  // are 64-bit two's complement values, truncated by the instruction; a float-typed instruction
  // takes 0f/0d literals as bit patterns (0d given to an f32 is rounded, as PTX converts it).
  std::uint32_t src(const Operand& o, Ty t) {
    if (o.kind == Operand::Imm) {
      if (t == Ty::F32 && o.float_literal && o.value > 0xFFFFFFFFull) {
        double d;
        std::memcpy(&d, &o.value, 8);
        const float f = static_cast<float>(d);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        return constant(b);
      }
      if (t == Ty::F64 && o.float_literal && o.value <= 0xFFFFFFFFull) {
        const auto b32 = static_cast<std::uint32_t>(o.value);
        float f;
        std::memcpy(&f, &b32, 4);
        const double d = f;
        std::uint64_t b;
        std::memcpy(&b, &d, 8);
        return constant(b);
      }
      if (is_float(t) && !o.float_literal) {  // an integer literal given to a float instruction
        const double d = static_cast<double>(static_cast<std::int64_t>(o.value));
        if (t == Ty::F32) {
          const float f = static_cast<float>(d);
          std::uint32_t b;
          std::memcpy(&b, &f, 4);
          return constant(b);
        }
        std::uint64_t b;
        std::memcpy(&b, &d, 8);
        return constant(b);
      }
      return constant(o.value);
    }
    if (o.kind != Operand::Reg) throw Unsupported{"operand form"};
    return reg(o.name);
  }
  void dst(Inst& in, const Operand& o, Ty) const {
    if (o.kind != Operand::Reg) throw Unsupported{"the destination must be a register"};
    in.d[0] = reg(o.name);
    if (in.d[0] < kSpecials) throw Unsupported{"write to a special register"};
  }
  void address(Inst& in, const Operand& o) {
    in.offset = o.offset;
    in.a = o.name.empty() ? constant(0) : reg(o.name);
  }

  Code& code_;
  const std::unordered_map<std::string, RegInfo>& regs_;
  const std::unordered_map<std::string, std::uint32_t>& labels_;
  std::unordered_map<std::uint64_t, std::uint32_t> constants_;
};

}  // namespace

// The decoded code ends with a return of its own (for a thread that runs off the end): not counted.
std::size_t Kernel::size() const { return code_ ? static_cast<const Code*>(code_.get())->insts.size() - 1 : 0; }

std::shared_ptr<const Module> Module::parse(std::string_view text, const std::string& source) {
  auto m = std::make_shared<Module>();
  std::vector<std::shared_ptr<Code>> codes;
  std::vector<std::vector<RawInst>> raws;
  std::vector<std::unordered_map<std::string, RegInfo>> regs;
  std::vector<std::unordered_map<std::string, std::uint32_t>> labels;
  std::vector<KernelParts> parts;
  Reader(text, source).read(parts, codes, raws, regs, labels);
  m->kernels_.resize(parts.size());
  for (std::size_t k = 0; k < m->kernels_.size(); ++k) {
    Kernel& kernel = m->kernels_[k];
    kernel.name_ = parts[k].name;
    kernel.params_ = parts[k].params;
    kernel.param_bytes_ = parts[k].param_bytes;
    kernel.unsupported_ = parts[k].unsupported;
    Code& code = *codes[k];
    Decoder dec(code, regs[k], labels[k]);
    for (const RawInst& r : raws[k]) {
      ++m->forms_[r.opcode];
      const auto source_index = static_cast<std::uint32_t>(code.lines.size());
      code.lines.push_back(r.where);
      try {
        code.insts.push_back(dec.decode(r, source_index));
      } catch (const Unsupported& u) {
        Inst in;
        in.source = source_index;
        code.insts.push_back(in);
        kernel.unsupported_.push_back("line " + std::to_string(r.where.ptx_line) + ": " + r.where.text + " (" + u.why + ")");
      }
    }
    Inst end;  // a thread that runs off the end returns
    end.fn = &ret;
    end.source = static_cast<std::uint32_t>(code.lines.size());
    code.lines.push_back(SourceLine{0, "(end of kernel)", 0, 0});
    code.insts.push_back(end);
    kernel.code_ = codes[k];
  }
  return m;
}

const Kernel* Module::find(std::string_view name) const {
  for (const Kernel& k : kernels_)
    if (k.name() == name) return &k;
  return nullptr;
}

namespace {

std::string where(const Code& code, const Inst& in) {
  const SourceLine& s = code.lines[in.source];
  std::string w = "'" + s.text + "' (PTX line " + std::to_string(s.ptx_line);
  if (s.file) {
    const auto f = code.files.find(s.file);
    w += ", " + (f != code.files.end() ? f->second : "file " + std::to_string(s.file)) + ":" + std::to_string(s.line);
  }
  return w + ")";
}

}  // namespace

// A kernel's name for messages: demangled where it is a C++ name.
std::string display_name(const std::string& mangled) {
  int status = 0;
  char* s = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && s ? std::string(s) : mangled;
  std::free(s);
  return out;
}

void check_launch(const Kernel& kernel, const Dim3& g, const Dim3& b) {
  if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0 || b.x > 1024 || b.y > 1024 || b.z > 64 ||
      static_cast<std::uint64_t>(b.x) * b.y * b.z > 1024 || g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    throw Fault(9, "kernel " + display_name(kernel.name()) + ": invalid launch configuration: grid (" + std::to_string(g.x) + ", " +
                       std::to_string(g.y) + ", " + std::to_string(g.z) + "), block (" + std::to_string(b.x) + ", " +
                       std::to_string(b.y) + ", " + std::to_string(b.z) + ")");
  if (!kernel.unsupported().empty())
    throw Fault(715, "kernel " + display_name(kernel.name()) + ": the PTX interpreter does not execute " + kernel.unsupported().front() +
                         (kernel.unsupported().size() > 1 ? " (and " + std::to_string(kernel.unsupported().size() - 1) + " more)" : ""));
}

void run(const Kernel& kernel, const Launch& launch) {
  const Dim3 g = launch.grid, b = launch.block;
  check_launch(kernel, g, b);
  const Code& code = *static_cast<const Code*>(kernel.code_.get());
  LaunchState state{&kernel, &code, launch.memory, reinterpret_cast<std::uintptr_t>(launch.params),
                    reinterpret_cast<std::uintptr_t>(launch.params) + kernel.param_bytes(),
                    launch.step_limit ? launch.step_limit : (std::uint64_t{1} << 32)};
  const std::uint64_t blocks = static_cast<std::uint64_t>(g.x) * g.y * g.z;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex m;
  std::optional<Fault> first;

  auto worker = [&]() {
    std::vector<std::uint64_t> regs = code.initial;
    std::vector<unsigned char> depot_storage(code.depot_bytes + code.depot_align + 1);
    const std::uintptr_t raw = reinterpret_cast<std::uintptr_t>(depot_storage.data());
    const std::uintptr_t depot = (raw + code.depot_align - 1) / code.depot_align * code.depot_align;
    Thread t{regs.data(), 0, &state, depot, depot + code.depot_bytes};
    for (const auto& [slot, offset] : code.param_slots) regs[slot] = state.param_begin + offset;
    for (const auto& [slot, offset] : code.local_slots) regs[slot] = depot + offset;
    regs[NtidX] = b.x, regs[NtidY] = b.y, regs[NtidZ] = b.z;
    regs[NctaX] = g.x, regs[NctaY] = g.y, regs[NctaZ] = g.z;
    const Inst* insts = code.insts.data();
    while (!failed.load(std::memory_order_relaxed)) {
      const std::uint64_t block = next.fetch_add(1);
      if (block >= blocks) break;
      const auto bx = static_cast<unsigned>(block % g.x), by = static_cast<unsigned>(block / g.x % g.y),
                 bz = static_cast<unsigned>(block / g.x / g.y);
      regs[CtaX] = bx, regs[CtaY] = by, regs[CtaZ] = bz;
      for (unsigned tz = 0; tz < b.z; ++tz)
        for (unsigned ty = 0; ty < b.y; ++ty)
          for (unsigned tx = 0; tx < b.x; ++tx) {
            regs[TidX] = tx, regs[TidY] = ty, regs[TidZ] = tz;
            t.pc = 0;
            std::uint64_t steps = 0;
            const Inst* in = nullptr;
            try {
              while (t.pc != kDone) {
                in = &insts[t.pc++];
                if (in->guard >= 0 && ((regs[static_cast<std::uint32_t>(in->guard)] & 1u) != 0) == in->guard_neg) continue;
                in->fn(t, *in);
                if (++steps > state.step_limit) fault(719, "the thread ran past " + std::to_string(state.step_limit) + " instructions");
              }
            } catch (const ThreadFault& f) {
              std::lock_guard lock(m);
              if (!first)
                first.emplace(f.code, "kernel " + display_name(kernel.name()) + ", block (" + std::to_string(bx) + ", " + std::to_string(by) + ", " +
                                          std::to_string(bz) + "), thread (" + std::to_string(tx) + ", " + std::to_string(ty) + ", " +
                                          std::to_string(tz) + "): " + f.what + " at " + where(code, *in));
              failed = true;
              return;
            }
          }
    }
  };
  const int threads = static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, static_cast<std::uint64_t>(std::max(1, launch.threads)))));
  std::vector<std::thread> pool;
  for (int k = 1; k < threads; ++k) pool.emplace_back(worker);
  worker();
  for (std::thread& th : pool) th.join();
  if (first) throw *first;
}

}  // namespace ptx
