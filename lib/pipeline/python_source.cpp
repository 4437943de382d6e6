#include "lib/pipeline/python_source.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"

namespace aug::py {

namespace {

// ---------------------------------------------------------------------------------------------
// Tokens

struct Token {
  enum class Kind { name, number, string, op, newline, end };
  Kind kind = Kind::end;
  std::string text;   // as written (a string: its decoded value)
  Place at;
  bool fstring = false, bytes = false;
};

bool is_name_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

// The value of a string literal's body (between the quotes), escapes decoded unless raw.
std::string decode(const std::string& body, bool raw) {
  if (raw) return body;
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    auto hex = [&](std::size_t n) {
      std::uint32_t v = 0;
      std::size_t k = 0;
      for (; k < n && i + 1 < body.size() && std::isxdigit(static_cast<unsigned char>(body[i + 1])); ++k, ++i)
        v = v * 16 + static_cast<std::uint32_t>(std::stoi(std::string(1, body[i + 1]), nullptr, 16));
      return v;
    };
    switch (c) {
      case '\n': break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'x': append_utf8(out, hex(2)); break;
      case 'u': append_utf8(out, hex(4)); break;
      case 'U': append_utf8(out, hex(8)); break;
      default:
        if (c >= '0' && c <= '7') {
          std::uint32_t v = static_cast<std::uint32_t>(c - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k)
            v = v * 8 + static_cast<std::uint32_t>(body[++i] - '0');
          append_utf8(out, v);
        } else {
          out += '\\';
          out += c;
        }
    }
  }
  return out;
}

class Tokenizer {
 public:
  Tokenizer(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    int depth = 0;
    bool line_has_tokens = false;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') advance();
        continue;
      }
      if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
        advance();
        if (s_[i_] == '\r') advance();
        advance();
        continue;
      }
      if (c == '\n') {
        if (depth == 0 && line_has_tokens) {
          out.push_back({Token::Kind::newline, "", here()});
          line_has_tokens = false;
        }
        advance();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        advance();
        continue;
      }
      line_has_tokens = true;
      const Place at = here();
      if (is_name_start(static_cast<unsigned char>(c))) {
        std::string word;
        while (i_ < s_.size() && is_name_char(static_cast<unsigned char>(s_[i_]))) word += advance();
        if (i_ < s_.size() && (s_[i_] == '"' || s_[i_] == '\'') && is_prefix(word)) {
          out.push_back(string(word, at));
          continue;
        }
        out.push_back({Token::Kind::name, word, at});
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1))))) {
        out.push_back({Token::Kind::number, number(), at});
        continue;
      }
      if (c == '"' || c == '\'') {
        out.push_back(string("", at));
        continue;
      }
      static const char* const ops[] = {"**=", "//=", ">>=", "<<=", "...", "->", ":=", "**", "//", "<<", ">>", "<=",
                                        ">=",  "==",  "!=",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@="};
      std::string op;
      for (const char* o : ops)
        if (s_.compare(i_, std::strlen(o), o) == 0) {
          op = o;
          break;
        }
      if (op.empty()) {
        if (std::strchr("()[]{},:.;@=+-*/%<>&|^~!", c) == nullptr)
          fail(at, std::string("unexpected character '") + c + "'");
        op = std::string(1, c);
      }
      for (std::size_t k = 0; k < op.size(); ++k) advance();
      if (op == "(" || op == "[" || op == "{") ++depth;
      if ((op == ")" || op == "]" || op == "}") && depth > 0) --depth;
      out.push_back({Token::Kind::op, op, at});
    }
    if (line_has_tokens) out.push_back({Token::Kind::newline, "", here()});
    out.push_back({Token::Kind::end, "", here()});
    return out;
  }

 private:
  char peek(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  Place here() const { return {line_, col_}; }
  char advance() {
    const char c = s_[i_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++col_;
    }
    return c;
  }
  [[noreturn]] void fail(Place at, const std::string& what) const {
    throw PipelineError(path_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + what);
  }

  static bool is_prefix(std::string w) {
    for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return w == "r" || w == "b" || w == "f" || w == "u" || w == "rb" || w == "br" || w == "fr" || w == "rf";
  }

  std::string number() {
    std::string t;
    const bool radix = s_[i_] == '0' && std::strchr("xXoObB", peek(1)) != nullptr && peek(1) != '\0';
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
        t += advance();
        if (!radix && (c == 'e' || c == 'E') && (peek(0) == '+' || peek(0) == '-')) t += advance();
        continue;
      }
      break;
    }
    return t;
  }

  // A string literal from its quote; `prefix` already read.
  Token string(const std::string& prefix, Place at) {
    std::string lower;
    for (char ch : prefix) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool raw = lower.find('r') != std::string::npos;
    const bool f = lower.find('f') != std::string::npos;
    const char q = s_[i_];
    const bool triple = peek(1) == q && peek(2) == q;
    for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
    std::string body;
    int braces = 0;  // an f-string's replacement fields
    while (true) {
      if (i_ >= s_.size()) fail(at, triple ? "unterminated triple-quoted string" : "unterminated string");
      const char c = s_[i_];
      if (!triple && c == '\n') fail(at, "unterminated string (end of the line)");
      if (f && braces > 0 && (c == '"' || c == '\'')) {
        // A string inside an f-string's replacement field (Python 3.12 allows the same quote).
        body += string("", here()).text;
        continue;
      }
      if (c == '\\') {
        body += advance();
        if (i_ < s_.size()) body += advance();
        continue;
      }
      if (f && c == '{') {
        if (braces == 0 && peek(1) == '{') {
          body += advance();
          body += advance();
          continue;
        }
        ++braces;
      } else if (f && c == '}' && braces > 0) {
        --braces;
      } else if (braces == 0 && c == q && (!triple || (peek(1) == q && peek(2) == q))) {
        for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
        break;
      }
      body += advance();
    }
    Token t{Token::Kind::string, decode(body, raw), at};
    t.fstring = f;
    t.bytes = lower.find('b') != std::string::npos;
    return t;
  }

  const std::string& s_;
  const std::string& path_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

// ---------------------------------------------------------------------------------------------
// The file's structure: logical lines, scopes (functions and classes), bindings, imports.

struct Scope;

struct Binding {
  std::string name;
  std::size_t count = 1, index = 0;  // a, b = ...: the index-th of count names
  std::size_t rhs = 0, rhs_end = 0;  // tokens of the value
  int line = 0;
  bool conditional = false;  // under an if / for / try at its scope's level
  const Scope* scope = nullptr;
};

// NAME.append(x) / .extend(xs) / .insert(i, x) / NAME += xs, or another change of a bound list
// (kind "other": NAME.pop(), NAME[i] = x, ...), at its scope's level or under a condition.
struct Mutation {
  std::string name, kind;
  std::string what;  // how messages show it, where not NAME and its kind
  std::size_t args = 0, args_end = 0;  // the call's arguments, or the right side of +=
  Place at;
  int line = 0;
  bool conditional = false;
  const Scope* scope = nullptr;
};

struct Parameter {
  std::string name;
  std::size_t def = 0, def_end = 0;  // its default's tokens (def == def_end: none)
  Place at;
};

struct Scope {
  enum class Kind { module, function, klass };
  Kind kind = Kind::module;
  std::string name;
  int indent = -1;       // of the def / class line
  int body_indent = -1;  // of its first body line
  const Scope* parent = nullptr;
  std::vector<Parameter> params;
  int def_line = 0;
};

struct Statement {
  std::size_t begin = 0, end = 0;  // tokens [begin, end)
  const Scope* scope = nullptr;
  int indent = 0;
  bool nested = false;  // under a compound statement inside its scope
};

bool is_op(const Token& t, const char* op) { return t.kind == Token::Kind::op && t.text == op; }
bool is_name(const Token& t, const char* w) { return t.kind == Token::Kind::name && t.text == w; }

const std::vector<std::string>& keywords() {
  static const std::vector<std::string> k = {
      "False", "None",   "True",    "and",      "as",   "assert", "async",  "await", "break",
      "class", "continue", "def",   "del",      "elif", "else",   "except", "finally", "for",
      "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",  "while",  "with",   "yield"};
  return k;
}
bool is_keyword(const std::string& w) {
  return std::find(keywords().begin(), keywords().end(), w) != keywords().end();
}

// cv2's constants that transforms take (their integer values).
const std::map<std::string, std::int64_t>& cv2_constants() {
  static const std::map<std::string, std::int64_t> m = {
      {"BORDER_CONSTANT", 0},    {"BORDER_REPLICATE", 1},  {"BORDER_REFLECT", 2},     {"BORDER_WRAP", 3},
      {"BORDER_REFLECT_101", 4}, {"BORDER_REFLECT101", 4}, {"BORDER_DEFAULT", 4},     {"BORDER_TRANSPARENT", 5},
      {"BORDER_ISOLATED", 16},   {"INTER_NEAREST", 0},     {"INTER_LINEAR", 1},       {"INTER_CUBIC", 2},
      {"INTER_AREA", 3},         {"INTER_LANCZOS4", 4},    {"INTER_LINEAR_EXACT", 5}, {"INTER_NEAREST_EXACT", 6},
      {"INTER_MAX", 7},          {"WARP_FILL_OUTLIERS", 8}, {"WARP_INVERSE_MAP", 16}, {"IMWRITE_JPEG_QUALITY", 1},
      {"IMWRITE_WEBP_QUALITY", 64}};
  return m;
}

std::string join_dotted(const std::vector<std::string>& parts, std::size_t from = 0) {
  std::string s;
  for (std::size_t k = from; k < parts.size(); ++k) s += (k > from ? "." : "") + parts[k];
  return s;
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// The library a full name belongs to: "albumentations", "torchvision" (its transforms) or "".
std::string library_of(const std::string& full) {
  if (full == "albumentations" || starts_with(full, "albumentations.")) return "albumentations";
  if (starts_with(full, "torchvision.transforms.")) return "torchvision";
  return "";
}

std::string last_part(const std::string& full) {
  const auto dot = full.rfind('.');
  return dot == std::string::npos ? full : full.substr(dot + 1);
}

}  // namespace

std::string Value::short_name() const { return last_part(s); }

std::string Value::repr() const {
  switch (kind) {
    case Kind::none: return "None";
    case Kind::boolean: return b ? "True" : "False";
    case Kind::integer: return std::to_string(i);
    case Kind::real: {
      std::string t = format_number(f);  // 1.0, not 1: Python's repr of a float
      if (t.find_first_of(".en") == std::string::npos) t += ".0";
      return t;
    }
    case Kind::string: return "'" + s + "'";
    case Kind::symbol: return s;
    case Kind::tuple:
    case Kind::list: {
      std::string o = kind == Kind::tuple ? "(" : "[";
      for (std::size_t k = 0; k < items.size(); ++k) o += (k ? ", " : "") + items[k].repr();
      if (kind == Kind::tuple && items.size() == 1) o += ",";
      return o + (kind == Kind::tuple ? ")" : "]");
    }
    case Kind::dict: {
      std::string o = "{";
      for (std::size_t k = 0; k < named.size(); ++k) o += (k ? ", '" : "'") + named[k].first + "': " + named[k].second.repr();
      return o + "}";
    }
    case Kind::call: return (written.empty() ? short_name() : written) + "(...)";
  }
  return "?";
}

struct Source::Impl {
  std::string path;
  std::vector<Token> toks;
  std::vector<std::unique_ptr<Scope>> scopes;  // [0]: the module
  std::vector<Statement> statements;
  std::vector<Binding> bindings;
  std::vector<Mutation> mutations;
  std::map<std::string, std::string> aliases;  // local name -> full name ("A" -> "albumentations")
  std::vector<std::string> star;               // modules imported with *
  std::map<std::string, std::string> imported_from;  // names from other modules: name -> module

  [[noreturn]] void fail(Place at, const std::string& what) const {
    throw PipelineError(path + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + what);
  }

  // The index of the bracket closing the one at `open`.
  std::size_t closing(std::size_t open) const {
    int depth = 0;
    for (std::size_t k = open; k < toks.size(); ++k) {
      const Token& t = toks[k];
      if (t.kind != Token::Kind::op) continue;
      if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
      if (t.text == ")" || t.text == "]" || t.text == "}") {
        if (--depth == 0) return k;
      }
    }
    fail(toks[open].at, "'" + toks[open].text + "' is never closed");
  }

  // ---- structure

  void structure() {
    scopes.push_back(std::make_unique<Scope>());
    std::vector<Scope*> stack = {scopes[0].get()};
    std::size_t k = 0;
    while (toks[k].kind != Token::Kind::end) {
      const std::size_t begin = k;
      while (toks[k].kind != Token::Kind::newline && toks[k].kind != Token::Kind::end) ++k;
      const std::size_t end = k;
      if (toks[k].kind == Token::Kind::newline) ++k;
      if (begin == end) continue;
      const int indent = toks[begin].at.col - 1;
      while (stack.size() > 1 && indent <= stack.back()->indent) stack.pop_back();
      Scope* scope = stack.back();
      if (scope->body_indent < 0 && scope->kind != Scope::Kind::module) scope->body_indent = indent;
      const int body_indent = scope->kind == Scope::Kind::module ? 0 : scope->body_indent;
      logical_line(begin, end, indent, indent > body_indent, stack);
    }
  }

  // One logical line: split at ';' and after a compound statement's ':'.
  void logical_line(std::size_t begin, std::size_t end, int indent, bool nested, std::vector<Scope*>& stack) {
    std::size_t k = begin;
    std::size_t b = begin;
    // `async def`
    if (is_name(toks[b], "async") && b + 1 < end) ++b;
    if (is_name(toks[b], "def") || is_name(toks[b], "class")) {
      auto scope = std::make_unique<Scope>();
      scope->kind = is_name(toks[b], "def") ? Scope::Kind::function : Scope::Kind::klass;
      scope->indent = indent;
      scope->parent = stack.back();
      scope->def_line = toks[b].at.line;
      if (b + 1 < end && toks[b + 1].kind == Token::Kind::name) scope->name = toks[b + 1].text;
      std::size_t colon = b + 2;
      if (colon < end && is_op(toks[colon], "(")) {
        const std::size_t close = closing(colon);
        if (scope->kind == Scope::Kind::function) parameters(colon, close, *scope);
        colon = close + 1;
      }
      while (colon < end && !is_op(toks[colon], ":")) {
        if (is_op(toks[colon], "(") || is_op(toks[colon], "[") || is_op(toks[colon], "{")) colon = closing(colon);
        ++colon;
      }
      Scope* s = scope.get();
      scopes.push_back(std::move(scope));
      stack.push_back(s);
      if (colon + 1 < end) {  // def f(): return ...
        s->body_indent = toks[colon + 1].at.col - 1;
        simple(colon + 1, end, s, s->body_indent, false);
      }
      return;
    }
    static const char* const compound[] = {"if", "elif", "else", "for", "while", "with", "try", "except", "finally",
                                           "async"};
    for (const char* w : compound)
      if (is_name(toks[k], w)) {
        // The header up to its ':' at depth 0; a body on the same line follows.
        std::size_t c = k + 1;
        while (c < end && !is_op(toks[c], ":")) {
          if (is_op(toks[c], "(") || is_op(toks[c], "[") || is_op(toks[c], "{")) c = closing(c);
          else if (is_name(toks[c], "lambda")) {  // its ':' is not the header's
            while (c < end && !is_op(toks[c], ":")) ++c;
          }
          ++c;
        }
        statements.push_back({k, std::min(c, end), stack.back(), indent, true});
        if (c + 1 < end) simple(c + 1, end, stack.back(), indent, true);
        return;
      }
    simple(begin, end, stack.back(), indent, nested);
  }

  // Simple statements separated by ';'.
  void simple(std::size_t begin, std::size_t end, const Scope* scope, int indent, bool nested) {
    std::size_t b = begin;
    for (std::size_t k = begin; k <= end; ++k) {
      if (k < end && (is_op(toks[k], "(") || is_op(toks[k], "[") || is_op(toks[k], "{"))) {
        k = closing(k);
        continue;
      }
      if (k == end || is_op(toks[k], ";")) {
        if (b < k) statement(b, k, scope, indent, nested);
        b = k + 1;
      }
    }
  }

  void statement(std::size_t begin, std::size_t end, const Scope* scope, int indent, bool nested) {
    statements.push_back({begin, end, scope, indent, nested});
    if (is_name(toks[begin], "import")) return import(begin + 1, end, "");
    if (is_name(toks[begin], "from")) {
      std::size_t k = begin + 1;
      std::string module;
      while (k < end && !is_name(toks[k], "import")) module += toks[k++].text;
      if (k < end) import(k + 1, end, module);
      return;
    }
    // Changes of a list bound to a name: NAME.method(...), NAME += ..., NAME[...] = ...; and of a
    // Compose's list: NAME.transforms...
    if (toks[begin].kind == Token::Kind::name && !is_keyword(toks[begin].text) && begin + 1 < end) {
      Mutation m{toks[begin].text, "", "", 0, 0, toks[begin].at, toks[begin].at.line, nested, scope};
      if (begin + 3 < end && is_op(toks[begin + 1], ".") && is_name(toks[begin + 2], "transforms") &&
          (is_op(toks[begin + 3], ".") || is_op(toks[begin + 3], "[") || is_op(toks[begin + 3], "+=") ||
           is_op(toks[begin + 3], "="))) {
        m.kind = "other";
        m.what = toks[begin].text + ".transforms";
        mutations.push_back(m);
        return;
      }
      if (is_op(toks[begin + 1], ".") && begin + 3 < end && toks[begin + 2].kind == Token::Kind::name &&
          is_op(toks[begin + 3], "(")) {
        static const char* const changes[] = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort"};
        const std::string method = toks[begin + 2].text;
        if (std::find(std::begin(changes), std::end(changes), method) != std::end(changes)) {
          const std::size_t close = closing(begin + 3);
          m.kind = close + 1 == end ? method : "other";
          m.args = begin + 4;
          m.args_end = close;
          mutations.push_back(m);
        }
        return;
      }
      if (is_op(toks[begin + 1], "+=")) {
        m.kind = "+=";
        m.args = begin + 2;
        m.args_end = end;
        mutations.push_back(m);
        return;
      }
      const std::string& op = toks[begin + 1].text;
      const bool augmented = toks[begin + 1].kind == Token::Kind::op && op.size() >= 2 && op.back() == '=' &&
                             op != "==" && op != "!=" && op != "<=" && op != ">=" && op != ":=";
      if (is_op(toks[begin + 1], "[") || augmented) {
        m.kind = "other";
        mutations.push_back(m);
        if (is_op(toks[begin + 1], "[")) {
          // NAME[...] = ...: a change, not a binding of NAME.
          bool assigns = false;
          for (std::size_t k = closing(begin + 1) + 1; k < end; ++k) assigns = assigns || is_op(toks[k], "=");
          if (assigns) return;
          mutations.pop_back();
        } else {
          return;
        }
      }
    }
    // Assignments: targets = ... = value (a target is a name or a tuple of names).
    std::vector<std::size_t> equals;
    for (std::size_t k = begin; k < end; ++k) {
      if (is_op(toks[k], "(") || is_op(toks[k], "[") || is_op(toks[k], "{")) {
        k = closing(k);
        continue;
      }
      if (is_name(toks[k], "lambda")) break;
      if (is_op(toks[k], "=")) equals.push_back(k);
    }
    if (equals.empty()) return;
    const std::size_t rhs = equals.back() + 1;
    std::size_t tb = begin;
    for (std::size_t e : equals) {
      std::size_t te = e;
      // NAME: annotation = value
      if (te - tb >= 3 && toks[tb].kind == Token::Kind::name && is_op(toks[tb + 1], ":")) te = tb + 1;
      std::vector<std::string> names;
      bool ok = true;
      std::size_t a = tb, z = te;
      if (z > a + 1 && (is_op(toks[a], "(") || is_op(toks[a], "[")) && closing(a) == z - 1) ++a, --z;
      for (std::size_t k = a; k < z; ++k) {
        if (toks[k].kind == Token::Kind::name && !is_keyword(toks[k].text) && (k + 1 == z || is_op(toks[k + 1], ","))) {
          names.push_back(toks[k].text);
          if (k + 1 < z) ++k;
        } else {
          ok = false;
          break;
        }
      }
      if (ok)
        for (std::size_t n = 0; n < names.size(); ++n)
          bindings.push_back({names[n], names.size(), n, rhs, end, toks[begin].at.line, nested, scope});
      tb = e + 1;
    }
  }

  void parameters(std::size_t open, std::size_t close, Scope& scope) {
    std::size_t k = open + 1;
    while (k < close) {
      std::size_t e = k;
      while (e < close && !is_op(toks[e], ",")) {
        if (is_op(toks[e], "(") || is_op(toks[e], "[") || is_op(toks[e], "{")) e = closing(e);
        ++e;
      }
      if (toks[k].kind == Token::Kind::name) {
        Parameter p{toks[k].text, 0, 0, toks[k].at};
        for (std::size_t d = k; d < e; ++d)
          if (is_op(toks[d], "=")) {
            p.def = d + 1;
            p.def_end = e;
            break;
          }
        scope.params.push_back(p);
      }
      k = e + 1;
    }
  }

  // import a.b as c, d  /  from m import x as y, (z)
  void import(std::size_t k, std::size_t end, const std::string& module) {
    while (k < end) {
      if (is_op(toks[k], "(") || is_op(toks[k], ")") || is_op(toks[k], ",")) {
        ++k;
        continue;
      }
      if (is_op(toks[k], "*")) {
        star.push_back(module);
        ++k;
        continue;
      }
      std::vector<std::string> parts;
      while (k < end && toks[k].kind == Token::Kind::name && !is_name(toks[k], "as")) {
        parts.push_back(toks[k++].text);
        if (k < end && is_op(toks[k], ".")) ++k;
        else break;
      }
      if (parts.empty()) {
        ++k;
        continue;
      }
      std::string local = parts[0];
      std::string full = module.empty() ? parts[0] : module + "." + join_dotted(parts);
      if (k + 1 < end && is_name(toks[k], "as") && toks[k + 1].kind == Token::Kind::name) {
        local = toks[k + 1].text;
        full = module.empty() ? join_dotted(parts) : full;
        k += 2;
      } else if (!module.empty()) {
        local = parts.back();
      }
      aliases[local] = full;
    }
  }

  // The full name of a dotted name as written ("A.Resize" -> "albumentations.Resize"); empty when
  // its first part is not imported.
  std::string resolve(const std::vector<std::string>& parts) const {
    const auto a = aliases.find(parts[0]);
    if (a != aliases.end()) return parts.size() == 1 ? a->second : a->second + "." + join_dotted(parts, 1);
    for (const std::string& m : star)
      if (!library_of(m + "." + parts[0]).empty() || m == "cv2") return m + "." + join_dotted(parts);
    return "";
  }

  // ---- finding the pipelines

  std::vector<Found> find(const std::string& library) const {
    std::vector<Found> out;
    for (const Statement& st : statements) {
      for (std::size_t k = st.begin; k < st.end; ++k) {
        if (toks[k].kind != Token::Kind::name || (k > st.begin && is_op(toks[k - 1], "."))) continue;
        std::vector<std::string> parts = {toks[k].text};
        std::size_t e = k + 1;
        while (e + 1 < st.end && is_op(toks[e], ".") && toks[e + 1].kind == Token::Kind::name) {
          parts.push_back(toks[e + 1].text);
          e += 2;
        }
        if (e >= st.end || !is_op(toks[e], "(")) continue;
        const std::string full = resolve(parts);
        const std::string name = last_part(full);
        if (library_of(full) != library || !(name == "Compose" || (library == "albumentations" && name == "ReplayCompose")))
          continue;
        Found f;
        f.library = library;
        f.at = toks[k].at;
        name_it(st, k, f);
        out.push_back(f);
        k = closing(e);  // a Compose inside is part of this one
      }
    }
    return out;
  }

  // What the pipeline at token k of `st` is called.
  void name_it(const Statement& st, std::size_t k, Found& f) const {
    std::string key, variable, keyword;
    // KEY: A.Compose(...) in a dict, or name=A.Compose(...) as a keyword argument.
    if (k >= st.begin + 2 && is_op(toks[k - 1], ":") && toks[k - 2].kind == Token::Kind::string && !toks[k - 2].fstring)
      key = toks[k - 2].text;
    if (k >= st.begin + 2 && is_op(toks[k - 1], "=") && toks[k - 2].kind == Token::Kind::name && k - 2 > st.begin &&
        (is_op(toks[k - 3], "(") || is_op(toks[k - 3], ",")))
      keyword = toks[k - 2].text;
    // NAME["KEY"] = ...: the dict entry, by its key and as written.
    std::string entry;
    if (st.begin + 4 < k && toks[st.begin].kind == Token::Kind::name && is_op(toks[st.begin + 1], "[") &&
        toks[st.begin + 2].kind == Token::Kind::string && !toks[st.begin + 2].fstring &&
        is_op(toks[st.begin + 3], "]") && is_op(toks[st.begin + 4], "=")) {
      key = toks[st.begin + 2].text;
      entry = toks[st.begin].text + "[\"" + key + "\"]";
      f.names.push_back(entry);
      f.names.push_back(toks[st.begin].text + "['" + key + "']");
    }
    // The statement's target: NAME = ..., self.NAME = ..., NAME: T = ...
    std::size_t eq = st.begin;
    for (; eq < st.end && eq < k; ++eq) {
      if (is_op(toks[eq], "(") || is_op(toks[eq], "[") || is_op(toks[eq], "{")) break;
      if (is_op(toks[eq], "=")) break;
    }
    if (eq < k && is_op(toks[eq], "=")) {
      std::string t;
      for (std::size_t a = st.begin; a < eq; ++a) {
        if (is_op(toks[a], ":")) break;
        t += toks[a].text;
      }
      variable = t;
    }
    const bool returned = is_name(toks[st.begin], "return");
    const Scope* fn = st.scope;
    while (fn && fn->kind != Scope::Kind::function) fn = fn->parent;

    if (!variable.empty()) {
      f.names.push_back(variable);
      if (starts_with(variable, "self.")) f.names.push_back(variable.substr(5));
    }
    if (!key.empty()) f.names.push_back(key);
    if (!keyword.empty()) f.names.push_back(keyword);
    if (fn) f.names.push_back(fn->name);

    if (!variable.empty()) f.label = variable + (key.empty() ? "" : "[\"" + key + "\"]");
    else if (!entry.empty()) f.label = entry;
    else if (!key.empty()) f.label = "\"" + key + "\"";
    else if (!keyword.empty()) f.label = keyword + "=";
    if (fn) {
      if (f.label.empty()) f.label = fn->name + "()";
      else if (!returned) f.label += " in " + fn->name + "()";
    } else if (f.label.empty()) {
      f.label = "(unnamed)";
    }
  }

  // ---- evaluation

  struct Context {
    const Scope* scope;  // where the expression is written
    int line;            // on which line
  };

  struct Cursor {
    std::size_t k, end;
  };

  const Parameter* parameter_of(const Scope* fn, const std::string& name) const {
    for (const Parameter& p : fn->params)
      if (p.name == name) return &p;
    return nullptr;
  }

  // The binding of `name` that an expression at `ctx` sees: in its function (before the line),
  // in the class or module (before the line at module level, the last one from a function).
  const Binding* binding_of(const std::string& name, const Scope* scope, int line, bool before) const {
    const Binding* found = nullptr;
    for (const Binding& b : bindings) {
      if (b.name != name || b.scope != scope) continue;
      if (before && b.line >= line) continue;
      found = &b;
    }
    return found;
  }

  Value bound(const Binding& b, Place use, const Scope* use_scope, std::vector<std::string>& notes, int depth) const {
    if (b.conditional)
      fail(use, b.name + " is bound under a condition, loop or try (line " + std::to_string(b.line) +
                    "): its value is known only when the code runs");
    Cursor c{b.rhs, b.rhs_end};
    Value v = expression_list(c, {b.scope, b.line}, notes, depth + 1);
    if (c.k != c.end) fail(toks[c.k].at, "cannot read the value of " + b.name + " here ('" + toks[c.k].text + "')");
    if (b.count > 1) {
      if ((v.kind != Value::Kind::tuple && v.kind != Value::Kind::list) || v.items.size() != b.count)
        fail(use, b.name + " is unpacked from " + v.repr() + ", which does not have " + std::to_string(b.count) + " items");
      Value item = std::move(v.items[b.index]);  // out of v first: v is overwritten with it
      v = std::move(item);
    }
    changed(b, v, use, use_scope, notes, depth);
    return v;
  }

  // The line of the next binding of `name` in `scope` after `line` (none: the largest int).
  int next_binding_line(const std::string& name, const Scope* scope, int line) const {
    int next = std::numeric_limits<int>::max();
    for (const Binding& o : bindings)
      if (o.name == name && o.scope == scope && o.line > line) next = std::min(next, o.line);
    return next;
  }

  // The changes made to b's value in b's scope after b and before the next binding of the name (and
  // before the use, where the use is in that scope), in order: append, extend, insert and += of
  // literals; anything else, or a change under a condition or loop, is refused.
  void changed(const Binding& b, Value& v, Place use, const Scope* use_scope, std::vector<std::string>& notes,
               int depth) const {
    int until = next_binding_line(b.name, b.scope, b.line);
    if (use_scope == b.scope && use.line > b.line) until = std::min(until, use.line);
    for (const Mutation& m : mutations) {
      if (m.name != b.name || m.scope != b.scope || m.line <= b.line || m.line >= until) continue;
      const std::string what = !m.what.empty() ? m.what : m.kind == "+=" ? "+=" : "." + m.kind + "()";
      if (m.conditional)
        fail(m.at, b.name + " is changed (" + what + ") under a condition or loop: its value is known only when the "
                            "code runs");
      const bool list = v.kind == Value::Kind::list, seq = list || v.kind == Value::Kind::tuple;
      if (!(m.kind == "append" || m.kind == "extend" || m.kind == "insert" || m.kind == "+=") || !seq ||
          (!list && m.kind != "+="))
        fail(m.at, b.name + " is changed here (" + what + "): only lists built with append, extend, insert and += "
                            "of literals are read");
      const Context ctx{m.scope, m.line};
      Cursor c{m.args, m.args_end};
      if (m.kind == "append" || m.kind == "insert") {
        std::int64_t index = static_cast<std::int64_t>(v.items.size());
        if (m.kind == "insert") {
          const Value i = expression(c, ctx, notes, depth + 1);
          if (i.kind != Value::Kind::integer || c.k >= c.end || !is_op(toks[c.k], ","))
            fail(m.at, b.name + ".insert(): give an integer index and one item");
          ++c.k;
          const auto n = static_cast<std::int64_t>(v.items.size());
          index = std::clamp(i.i < 0 ? i.i + n : i.i, std::int64_t{0}, n);
        }
        Value item = expression(c, ctx, notes, depth + 1);
        if (c.k != c.end) fail(toks[c.k].at, b.name + "." + m.kind + "() takes one item here");
        v.items.insert(v.items.begin() + index, std::move(item));
      } else {
        Value more = expression_list(c, ctx, notes, depth + 1);
        if (c.k != c.end) fail(toks[c.k].at, "cannot read the items added to " + b.name + " here ('" + toks[c.k].text + "')");
        if (more.kind != Value::Kind::list && more.kind != Value::Kind::tuple)
          fail(m.at, b.name + " " + what + " with " + more.repr() + ": only a literal list or tuple of items is read");
        for (Value& i : more.items) v.items.push_back(std::move(i));
      }
    }
  }

  Value name_value(const std::string& name, Place at, const Context& ctx, std::vector<std::string>& notes,
                   int depth) const {
    if (depth > 64) fail(at, name + ": names bound to each other too deeply");
    const Scope* s = ctx.scope;
    // A class body's own names; the function's own names, then its parameters, then the enclosing
    // functions', the module's.
    if (s && s->kind == Scope::Kind::klass) {
      if (const Binding* b = binding_of(name, s, ctx.line, true)) return bound(*b, at, ctx.scope, notes, depth);
    }
    bool from_function = false;
    while (s) {
      if (s->kind == Scope::Kind::function || s->kind == Scope::Kind::module) {
        const bool module = s->kind == Scope::Kind::module;
        const Binding* b = binding_of(name, s, ctx.line, module ? !from_function : true);
        if (!b && !module) b = binding_of(name, s, ctx.line, false);
        if (b) return bound(*b, at, ctx.scope, notes, depth);
        if (!module) {
          if (const Parameter* p = parameter_of(s, name)) {
            if (p->def == p->def_end)
              fail(at, name + " is a parameter of " + s->name + "() without a default: its value is known only when "
                              "the code runs");
            Cursor c{p->def, p->def_end};
            Value v = expression(c, {s->parent, s->def_line}, notes, depth + 1);
            const std::string note = path + ":" + std::to_string(p->at.line) + ":" + std::to_string(p->at.col) + ": " +
                                     name + " is a parameter of " + s->name + "(); its default " + v.repr() + " is used";
            if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
            return v;
          }
          from_function = true;
        }
      }
      s = s->parent;
    }
    if (aliases.count(name))
      fail(at, name + " is imported (" + aliases.at(name) + "): only literals written in this file are read");
    fail(at, name + " is not bound to a literal in this file");
  }

  // [expr, expr, ...]: a tuple when there is a comma.
  Value expression_list(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    const Place at = toks[c.k].at;
    Value first = expression(c, ctx, notes, depth);
    if (c.k >= c.end || !is_op(toks[c.k], ",")) return first;
    Value t;
    t.kind = Value::Kind::tuple;
    t.at = at;
    t.items.push_back(std::move(first));
    while (c.k < c.end && is_op(toks[c.k], ",")) {
      ++c.k;
      if (c.k >= c.end) break;
      t.items.push_back(expression(c, ctx, notes, depth));
    }
    return t;
  }

  [[noreturn]] void refuse_at(const Token& t, const std::string& what) const { fail(t.at, what); }

  Value expression(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    if (c.k >= c.end) fail(toks[std::min(c.k, toks.size() - 1)].at, "an expression is missing");
    if (is_name(toks[c.k], "lambda"))
      refuse_at(toks[c.k], "a lambda: code runs only when the pipeline does; only literals are read");
    if (is_name(toks[c.k], "yield") || is_name(toks[c.k], "await"))
      refuse_at(toks[c.k], "'" + toks[c.k].text + "': only literals are read");
    if (is_op(toks[c.k], "*") || is_op(toks[c.k], "**"))
      refuse_at(toks[c.k], "'" + toks[c.k].text + "' unpacking: write the arguments out");
    Value v = arith(c, ctx, notes, depth);
    if (c.k < c.end) {
      const Token& t = toks[c.k];
      if (is_name(t, "if")) return conditional(c, std::move(v), ctx, notes, depth);
      if (is_name(t, "for") || is_name(t, "async"))
        refuse_at(t, "a comprehension: its value is known only when the code runs; write the items out");
      if (is_name(t, "and") || is_name(t, "or") || is_name(t, "not") || is_name(t, "in") || is_name(t, "is") ||
          is_op(t, "<") || is_op(t, ">") || is_op(t, "==") || is_op(t, "!=") || is_op(t, "<=") || is_op(t, ">="))
        refuse_at(t, "'" + t.text + "': a condition; only literals and arithmetic are read");
      if (is_op(t, ":=")) refuse_at(t, "':=': only literals are read");
    }
    return v;
  }

  // x if COND else y, at `if` with x read: COND must be a literal or a name bound to one (a module
  // setting such as AUGMENT = True, a parameter's literal default), or == / != of two such, whose
  // truth picks the branch; the other is skipped unread.
  Value conditional(Cursor& c, Value x, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    const Token& at = toks[c.k++];
    Value cond;
    try {
      cond = arith(c, ctx, notes, depth);
    } catch (const PipelineError&) {
      refuse_at(at, "a conditional expression (x if c else y) whose condition is not a literal: its value is known "
                    "only when the code runs");
    }
    // COND == VALUE, COND != VALUE of literals.
    std::optional<bool> compared;
    if (c.k < c.end && (is_op(toks[c.k], "==") || is_op(toks[c.k], "!="))) {
      const bool equal_wanted = is_op(toks[c.k], "==");
      ++c.k;
      Value rhs;
      try {
        rhs = arith(c, ctx, notes, depth);
      } catch (const PipelineError&) {
        refuse_at(at, "a conditional expression (x if c else y) whose condition is not a literal: its value is "
                      "known only when the code runs");
      }
      const bool numbers = cond.is_number() && rhs.is_number();
      bool equal = false;
      if (numbers) equal = cond.number() == rhs.number();
      else if (cond.kind != rhs.kind) equal = false;
      else if (cond.kind == Value::Kind::string) equal = cond.s == rhs.s;
      else if (cond.kind == Value::Kind::boolean) equal = cond.b == rhs.b;
      else if (cond.kind == Value::Kind::none) equal = true;
      else refuse_at(at, "a conditional expression comparing " + cond.repr() + ": only numbers, strings, booleans "
                         "and None are compared");
      compared = equal == equal_wanted;
    }
    if (c.k >= c.end || !is_name(toks[c.k], "else"))
      refuse_at(c.k < c.end ? toks[c.k] : at, "a conditional expression (x if c else y) whose condition is not a "
                                               "literal: its value is known only when the code runs");
    ++c.k;
    bool truth = compared.value_or(false);
    if (!compared) switch (cond.kind) {
      case Value::Kind::none: truth = false; break;
      case Value::Kind::boolean: truth = cond.b; break;
      case Value::Kind::integer: truth = cond.i != 0; break;
      case Value::Kind::real: truth = cond.f != 0; break;
      case Value::Kind::string: truth = !cond.s.empty(); break;
      case Value::Kind::tuple:
      case Value::Kind::list: truth = !cond.items.empty(); break;
      case Value::Kind::dict: truth = !cond.named.empty(); break;
      default:
        refuse_at(at, "a conditional expression whose condition is " + cond.repr() + ": only a literal condition is read");
    }
    if (!truth) return expression(c, ctx, notes, depth);
    // The else branch, skipped: up to the next comma or the end of the enclosing bracket.
    while (c.k < c.end && !is_op(toks[c.k], ",")) {
      if (is_op(toks[c.k], "(") || is_op(toks[c.k], "[") || is_op(toks[c.k], "{")) c.k = closing(c.k);
      ++c.k;
    }
    return x;
  }

  static Value number_value(double v, Place at) {
    Value r;
    r.kind = Value::Kind::real;
    r.f = v;
    r.at = at;
    return r;
  }
  static Value int_value(std::int64_t v, Place at) {
    Value r;
    r.kind = Value::Kind::integer;
    r.i = v;
    r.at = at;
    return r;
  }

  Value binary(const Token& op, Value a, const Value& b) const {
    const std::string& o = op.text;
    if (o == "+" && a.kind == Value::Kind::string && b.kind == Value::Kind::string) {
      a.s += b.s;
      return a;
    }
    if (o == "+" && a.kind == b.kind && (a.kind == Value::Kind::tuple || a.kind == Value::Kind::list)) {
      a.items.insert(a.items.end(), b.items.begin(), b.items.end());
      return a;
    }
    if (o == "*" && (a.kind == Value::Kind::tuple || a.kind == Value::Kind::list) && b.kind == Value::Kind::integer) {
      Value r = a;
      r.items.clear();
      for (std::int64_t n = 0; n < b.i && n < 4096; ++n) r.items.insert(r.items.end(), a.items.begin(), a.items.end());
      return r;
    }
    const bool na = a.is_number() || a.kind == Value::Kind::boolean, nb = b.is_number() || b.kind == Value::Kind::boolean;
    if (!na || !nb) refuse_at(op, "'" + o + "' of " + a.repr() + " and " + b.repr() + ": only arithmetic of numbers is read");
    if (a.kind == Value::Kind::boolean) a = int_value(a.b ? 1 : 0, a.at);
    Value bb = b;
    if (bb.kind == Value::Kind::boolean) bb = int_value(bb.b ? 1 : 0, bb.at);
    const bool ints = a.kind == Value::Kind::integer && bb.kind == Value::Kind::integer;
    const double x = a.number(), y = bb.number();
    if ((o == "/" || o == "//" || o == "%") && y == 0) refuse_at(op, "division by zero");
    if (ints) {
      const std::int64_t p = a.i, q = bb.i;
      if (o == "+") return int_value(p + q, a.at);
      if (o == "-") return int_value(p - q, a.at);
      if (o == "*") return int_value(p * q, a.at);
      if (o == "//") return int_value(static_cast<std::int64_t>(std::floor(static_cast<double>(p) / static_cast<double>(q))), a.at);
      if (o == "%") return int_value(((p % q) + q) % q, a.at);
      if (o == "**" && q >= 0) {
        std::int64_t r = 1;
        for (std::int64_t n = 0; n < q && n < 64; ++n) r *= p;
        return int_value(r, a.at);
      }
      if (o == "<<") return int_value(p << q, a.at);
      if (o == ">>") return int_value(p >> q, a.at);
      if (o == "&") return int_value(p & q, a.at);
      if (o == "|") return int_value(p | q, a.at);
      if (o == "^") return int_value(p ^ q, a.at);
    }
    if (o == "+") return number_value(x + y, a.at);
    if (o == "-") return number_value(x - y, a.at);
    if (o == "*") return number_value(x * y, a.at);
    if (o == "/") return number_value(x / y, a.at);
    if (o == "//") return number_value(std::floor(x / y), a.at);
    if (o == "%") return number_value(x - y * std::floor(x / y), a.at);
    if (o == "**") return number_value(std::pow(x, y), a.at);
    refuse_at(op, "'" + o + "' of " + a.repr() + " and " + b.repr() + ": only arithmetic of numbers is read");
  }

  // | ^ & << >> + - * / // % @ and **, by Python's precedence.
  Value arith(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth, int level = 0) const {
    static const std::vector<std::vector<std::string>> levels = {{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"},
                                                                 {"*", "/", "//", "%", "@"}};
    if (level == static_cast<int>(levels.size())) return unary(c, ctx, notes, depth);
    Value v = arith(c, ctx, notes, depth, level + 1);
    while (c.k < c.end && toks[c.k].kind == Token::Kind::op &&
           std::find(levels[level].begin(), levels[level].end(), toks[c.k].text) != levels[level].end()) {
      const Token& op = toks[c.k++];
      if (op.text == "@") refuse_at(op, "'@': only arithmetic of numbers is read");
      Value r = arith(c, ctx, notes, depth, level + 1);
      v = binary(op, std::move(v), r);
    }
    return v;
  }

  Value unary(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    if (c.k < c.end && (is_op(toks[c.k], "-") || is_op(toks[c.k], "+") || is_op(toks[c.k], "~"))) {
      const Token& op = toks[c.k++];
      Value v = unary(c, ctx, notes, depth);
      if (v.kind == Value::Kind::boolean) v = int_value(v.b ? 1 : 0, v.at);
      if (!v.is_number() || (op.text == "~" && v.kind != Value::Kind::integer))
        refuse_at(op, "'" + op.text + "' of " + v.repr() + ": only arithmetic of numbers is read");
      v.at = op.at;
      if (op.text == "-") {
        v.i = -v.i;
        v.f = -v.f;
      } else if (op.text == "~") {
        v.i = ~v.i;
      }
      return v;
    }
    if (c.k < c.end && is_name(toks[c.k], "not"))
      refuse_at(toks[c.k], "'not': a condition; only literals and arithmetic are read");
    Value base = primary(c, ctx, notes, depth);
    if (c.k < c.end && is_op(toks[c.k], "**")) {
      const Token& op = toks[c.k++];
      Value e = unary(c, ctx, notes, depth);
      return binary(op, std::move(base), e);
    }
    return base;
  }

  // Arguments of a call: (positional..., name=value...).
  // Python's built-in functions of literals that settings are written with: list(...) and tuple(...)
  // of a list or tuple, int(x), float(x), round(x[, n]), abs(x), min(...) and max(...) of numbers.
  static bool literal_builtin(const std::string& name) {
    static const char* const names[] = {"list", "tuple", "int", "float", "round", "abs", "min", "max"};
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
  }

  Value builtin(Cursor& c, const Token& t, const std::string& name, const Context& ctx, std::vector<std::string>& notes,
                int depth) const {
    Value a;
    a.kind = Value::Kind::call;
    arguments(c, a, ctx, notes, depth);
    const std::string shown = name + "(...)";
    if (!a.named.empty()) refuse_at(t, shown + " with keyword arguments: only its plain form is read");
    Value v;
    v.at = t.at;
    const auto number_at = [&](std::size_t i) -> const Value& {
      if (i >= a.items.size() || !a.items[i].is_number())
        refuse_at(t, shown + ": only numbers are read as its arguments");
      return a.items[i];
    };
    if (name == "list" || name == "tuple") {
      if (a.items.size() != 1 || (a.items[0].kind != Value::Kind::list && a.items[0].kind != Value::Kind::tuple))
        refuse_at(t, shown + ": only a literal list or tuple is read as its argument");
      v = a.items[0];
      v.kind = name == "list" ? Value::Kind::list : Value::Kind::tuple;
      return v;
    }
    if (name == "min" || name == "max") {
      std::vector<Value> xs = a.items;
      if (xs.size() == 1 && (xs[0].kind == Value::Kind::list || xs[0].kind == Value::Kind::tuple)) xs = xs[0].items;
      if (xs.empty()) refuse_at(t, shown + ": no arguments");
      const Value* best = nullptr;
      for (const Value& x : xs) {
        if (!x.is_number()) refuse_at(t, shown + ": only numbers are read as its arguments");
        if (!best || (name == "min" ? x.number() < best->number() : x.number() > best->number())) best = &x;
      }
      v = *best;  // the first of equal values, its type kept, as Python gives it
      return v;
    }
    if (a.items.size() != 1 && !(name == "round" && a.items.size() == 2))
      refuse_at(t, shown + ": " + std::to_string(a.items.size()) + " arguments");
    const Value& x = number_at(0);
    if (name == "abs") {
      v = x;
      if (v.kind == Value::Kind::integer) v.i = v.i < 0 ? -v.i : v.i;
      else v.f = std::fabs(v.f);
      return v;
    }
    if (name == "float") {
      v.kind = Value::Kind::real;
      v.f = x.number();
      return v;
    }
    if (name == "int") {  // towards zero
      if (x.kind == Value::Kind::integer) return x;
      if (!std::isfinite(x.f) || std::fabs(x.f) >= 9.2e18) refuse_at(t, shown + ": the value does not fit an integer");
      v.kind = Value::Kind::integer;
      v.i = static_cast<std::int64_t>(std::trunc(x.f));
      return v;
    }
    // round: half to even; round(x) an integer, round(x, n) a number with n decimals.
    if (a.items.size() == 2) {
      const Value& n = number_at(1);
      if (n.kind != Value::Kind::integer) refuse_at(t, shown + ": the number of digits must be an integer");
      if (x.kind == Value::Kind::integer && n.i >= 0) return x;
      const double scale = std::pow(10.0, static_cast<double>(n.i));
      v.kind = x.kind;
      v.f = std::nearbyint(x.number() * scale) / scale;
      if (x.kind == Value::Kind::integer) v.i = static_cast<std::int64_t>(v.f);
      return v;
    }
    if (x.kind == Value::Kind::integer) return x;
    if (!std::isfinite(x.f) || std::fabs(x.f) >= 9.2e18) refuse_at(t, shown + ": the value does not fit an integer");
    v.kind = Value::Kind::integer;
    v.i = static_cast<std::int64_t>(std::nearbyint(x.f));
    return v;
  }

  // collections.defaultdict(lambda: VALUE[, {...}]), torchvision's fill per type with a default:
  // the dict, with VALUE under "others" (what torchvision gives a type the dict does not name).
  Value default_dict(Cursor& c, const Token& t, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    const std::size_t close = closing(c.k);
    const std::size_t k = c.k + 1;
    if (k + 1 >= close || !is_name(toks[k], "lambda") || !is_op(toks[k + 1], ":"))
      refuse_at(t, "defaultdict(...): only defaultdict(lambda: VALUE, {...}) with a literal VALUE is read");
    Cursor a{k + 2, close};
    Value others = expression(a, ctx, notes, depth);
    Value d;
    d.kind = Value::Kind::dict;
    d.at = t.at;
    if (a.k < close && is_op(toks[a.k], ",")) {
      ++a.k;
      if (a.k < close) {
        Value m = expression(a, ctx, notes, depth);
        if (m.kind != Value::Kind::dict) refuse_at(t, "defaultdict(...): its second argument must be a literal dict");
        d.named = std::move(m.named);
        if (a.k < close && is_op(toks[a.k], ",")) ++a.k;
      }
    }
    if (a.k < close) refuse_at(toks[a.k], "cannot read defaultdict's arguments here ('" + toks[a.k].text + "')");
    bool named_others = false;
    for (const auto& kv : d.named) named_others = named_others || kv.first == "others";
    if (!named_others) d.named.emplace_back("others", std::move(others));
    c.k = close + 1;
    return d;
  }

  void arguments(Cursor& c, Value& call, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    const std::size_t close = closing(c.k);
    comprehension(toks[c.k], c.k + 1, close);
    ++c.k;
    while (c.k < close) {
      if (is_op(toks[c.k], "*") || is_op(toks[c.k], "**")) {
        // *items (a literal list or tuple: positional arguments), **mapping (a literal dict: keywords).
        const Token& star = toks[c.k];
        const bool keywords = star.text == "**";
        Cursor a{c.k + 1, close};
        Value v = expression(a, ctx, notes, depth);
        if (keywords) {
          if (v.kind != Value::Kind::dict)
            refuse_at(star, "'**' unpacking of " + v.repr() + ": only a literal dict is read");
          for (auto& kv : v.named) {
            for (const auto& have : call.named)
              if (have.first == kv.first) refuse_at(star, "keyword argument " + kv.first + " repeated");
            call.named.emplace_back(kv.first, std::move(kv.second));
          }
        } else {
          if (v.kind != Value::Kind::list && v.kind != Value::Kind::tuple)
            refuse_at(star, "'*' unpacking of " + v.repr() + ": only a literal list or tuple is read");
          if (!call.named.empty()) refuse_at(star, "positional arguments after keyword arguments");
          for (Value& i : v.items) call.items.push_back(std::move(i));
        }
        c.k = a.k;
        if (c.k < close && !is_op(toks[c.k], ",")) refuse_at(toks[c.k], "cannot read the argument here ('" + toks[c.k].text + "')");
        if (c.k < close) ++c.k;
        continue;
      }
      Cursor a{c.k, close};
      if (toks[c.k].kind == Token::Kind::name && c.k + 1 < close && is_op(toks[c.k + 1], "=")) {
        const std::string key = toks[c.k].text;
        a.k += 2;
        Value v = expression(a, ctx, notes, depth);
        for (const auto& kv : call.named)
          if (kv.first == key) refuse_at(toks[c.k], "keyword argument " + key + " repeated");
        call.named.emplace_back(key, std::move(v));
      } else {
        if (!call.named.empty()) refuse_at(toks[c.k], "a positional argument after keyword arguments");
        call.items.push_back(expression(a, ctx, notes, depth));
      }
      c.k = a.k;
      if (c.k < close && !is_op(toks[c.k], ",")) refuse_at(toks[c.k], "cannot read the argument here ('" + toks[c.k].text + "')");
      if (c.k < close) ++c.k;
    }
    c.k = close + 1;
  }

  // A name, a dotted name, a call, a literal, a bracket, and their subscripts.
  Value primary(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    Value v = atom(c, ctx, notes, depth);
    while (c.k < c.end && is_op(toks[c.k], "[")) {
      const Token& open = toks[c.k];
      const std::size_t close = closing(c.k);
      Cursor i{c.k + 1, close};
      if (i.k == close) refuse_at(open, "an empty subscript");
      Value index = expression_list(i, ctx, notes, depth);
      if (i.k != close) refuse_at(toks[i.k], "a slice or an index that is not a literal: only literals are read");
      c.k = close + 1;
      if ((v.kind == Value::Kind::list || v.kind == Value::Kind::tuple) && index.kind == Value::Kind::integer) {
        const std::int64_t n = static_cast<std::int64_t>(v.items.size());
        const std::int64_t at = index.i < 0 ? index.i + n : index.i;
        if (at < 0 || at >= n) refuse_at(open, "index " + std::to_string(index.i) + " is out of " + v.repr());
        Value item = std::move(v.items[static_cast<std::size_t>(at)]);  // out of v first: v is overwritten with it
        v = std::move(item);
        continue;
      }
      if (v.kind == Value::Kind::dict && index.kind == Value::Kind::string) {
        const auto it = std::find_if(v.named.begin(), v.named.end(), [&](const auto& kv) { return kv.first == index.s; });
        if (it == v.named.end()) refuse_at(open, "no key '" + index.s + "' in " + v.repr());
        if (!it->second.refused.empty()) throw PipelineError(it->second.refused);
        Value entry = it->second;  // out of v first: v is overwritten with it
        v = std::move(entry);
        continue;
      }
      refuse_at(open, "subscript " + index.repr() + " of " + v.repr() + ": only literal lists, tuples and dicts are read");
    }
    if (c.k < c.end && (is_op(toks[c.k], "(") || is_op(toks[c.k], ".")))
      refuse_at(toks[c.k], "'" + toks[c.k].text + "' after " + v.repr() + ": only literals are read");
    return v;
  }

  Value atom(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    if (c.k >= c.end) fail(toks[std::min(c.k, toks.size() - 1)].at, "an expression is missing");
    const Token& t = toks[c.k];
    Value v;
    v.at = t.at;
    switch (t.kind) {
      case Token::Kind::number: {
        ++c.k;
        std::string n;
        for (char ch : t.text)
          if (ch != '_') n += ch;
        if (!n.empty() && (n.back() == 'j' || n.back() == 'J')) refuse_at(t, "a complex number");
        errno = 0;
        char* endp = nullptr;
        const bool radix = n.size() > 2 && n[0] == '0' && std::strchr("xXoObB", n[1]);
        if (radix) {
          const int base = (n[1] == 'x' || n[1] == 'X') ? 16 : (n[1] == 'o' || n[1] == 'O') ? 8 : 2;
          v.kind = Value::Kind::integer;
          v.i = std::strtoll(n.c_str() + 2, &endp, base);
        } else if (n.find_first_of(".eE") != std::string::npos) {
          v.kind = Value::Kind::real;
          v.f = std::strtod(n.c_str(), &endp);
        } else {
          v.kind = Value::Kind::integer;
          v.i = std::strtoll(n.c_str(), &endp, 10);
        }
        if (errno != 0 || !endp || *endp != '\0') refuse_at(t, "cannot read the number " + t.text);
        return v;
      }
      case Token::Kind::string: {
        v.kind = Value::Kind::string;
        while (c.k < c.end && toks[c.k].kind == Token::Kind::string) {
          const Token& s = toks[c.k++];
          if (s.fstring) refuse_at(s, "an f-string: its value is known only when the code runs; write the string out");
          if (s.bytes) refuse_at(s, "a bytes literal: only text strings are read");
          v.s += s.text;
        }
        return v;
      }
      case Token::Kind::op: {
        if (t.text == "(" || t.text == "[" || t.text == "{") return bracket(c, ctx, notes, depth);
        if (t.text == "...") refuse_at(t, "'...': only literals are read");
        refuse_at(t, "cannot read an expression that starts with '" + t.text + "'");
      }
      case Token::Kind::name: break;
      default: fail(t.at, "an expression is missing");
    }
    if (t.text == "None" || t.text == "True" || t.text == "False") {
      ++c.k;
      v.kind = t.text == "None" ? Value::Kind::none : Value::Kind::boolean;
      v.b = t.text == "True";
      return v;
    }
    if (is_keyword(t.text)) refuse_at(t, "'" + t.text + "': only literals are read");
    // A dotted name.
    std::vector<std::string> parts = {t.text};
    std::string written = t.text;
    ++c.k;
    while (c.k + 1 < c.end && is_op(toks[c.k], ".") && toks[c.k + 1].kind == Token::Kind::name) {
      parts.push_back(toks[c.k + 1].text);
      written += "." + toks[c.k + 1].text;
      c.k += 2;
    }
    const bool call = c.k < c.end && is_op(toks[c.k], "(");
    const std::string full = resolve(parts);
    if (call) {
      if (!library_of(full).empty()) {
        v.kind = Value::Kind::call;
        v.s = full;
        v.written = written;
        // Lambda's arguments are most often functions: whatever they are, the import refuses the
        // transform itself, by name. The conversions a training loader does are left out by the
        // import, so their arguments (Normalize's mean from a settings object) need not be read.
        static const char* const unread[] = {"Lambda",    "Normalize",   "ToTensor",    "ToTensorV2",
                                             "ToFloat",   "FromFloat",   "NoOp",        "ConvertImageDtype",
                                             "ToDtype",   "PILToTensor", "ToImage",     "ToPILImage",
                                             "ToPureTensor"};
        if (std::find(std::begin(unread), std::end(unread), last_part(full)) != std::end(unread)) {
          const std::size_t close = closing(c.k);
          try {
            arguments(c, v, ctx, notes, depth);
          } catch (const PipelineError&) {
            v.items.clear();
            v.named.clear();
            c.k = close + 1;
          }
          return v;
        }
        arguments(c, v, ctx, notes, depth);
        return v;
      }
      if (parts.size() == 1 && parts[0] == "dict" && !aliases.count("dict")) {
        Value d;
        d.kind = Value::Kind::call;
        arguments(c, d, ctx, notes, depth);
        if (!d.items.empty()) refuse_at(t, "dict(...) with positional arguments: write the dict out");
        v.kind = Value::Kind::dict;
        v.named = std::move(d.named);
        return v;
      }
      if (parts.size() == 1 && !aliases.count(parts[0]) && literal_builtin(parts[0])) return builtin(c, t, parts[0], ctx, notes, depth);
      if (full == "collections.defaultdict") return default_dict(c, t, ctx, notes, depth);
      if (full == "torch.nn.ModuleList") {
        // A list of transforms held in a module list (RandomApply's documented form): the list.
        Value m;
        m.kind = Value::Kind::call;
        arguments(c, m, ctx, notes, depth);
        if (m.items.size() != 1 || !m.named.empty() ||
            (m.items[0].kind != Value::Kind::list && m.items[0].kind != Value::Kind::tuple))
          refuse_at(t, written + "(...): give it one literal list of transforms");
        return m.items[0];
      }
      if (parts[0] == "self") refuse_at(t, written + "(...): a method call; its value is known only when the code runs");
      refuse_at(t, written + "(...): a call to a function that is not a transform; only literals and transforms are read");
    }
    if (parts.size() > 1) {
      if (starts_with(full, "PIL.Image.")) {
        // PIL's resampling filters (Image.BICUBIC, Image.Resampling.BICUBIC): the integers torchvision
        // takes for them.
        static const std::map<std::string, std::int64_t> pil = {
            {"NEAREST", 0}, {"NONE", 0},  {"LANCZOS", 1}, {"ANTIALIAS", 1}, {"BILINEAR", 2},
            {"LINEAR", 2},  {"BICUBIC", 3}, {"CUBIC", 3},   {"BOX", 4},       {"HAMMING", 5}};
        const auto it = pil.find(last_part(full));
        if (it == pil.end()) refuse_at(t, written + ": not a PIL resampling filter the reader knows");
        v.kind = Value::Kind::integer;
        v.i = it->second;
        return v;
      }
      if (full.size() > 4 && starts_with(full, "cv2.")) {
        const auto it = cv2_constants().find(full.substr(4));
        if (it == cv2_constants().end()) refuse_at(t, written + ": not a cv2 constant the reader knows (BORDER_*, INTER_*)");
        v.kind = Value::Kind::integer;
        v.i = it->second;
        return v;
      }
      if (!full.empty() && parts.size() >= 2) {
        const std::string owner = parts[parts.size() - 2];
        if (owner == "InterpolationMode" || owner == "AutoAugmentPolicy" || starts_with(full, "torch.")) {
          v.kind = Value::Kind::symbol;
          v.s = starts_with(full, "torch.") && owner == "torch" ? full : owner + "." + parts.back();
          return v;
        }
      }
      if (parts.size() >= 2 && (parts[parts.size() - 2] == "tv_tensors" || parts[parts.size() - 2] == "datapoints")) {
        // torchvision's types, as the keys of a fill per type ({tv_tensors.Image: ..., "others": ...}).
        v.kind = Value::Kind::symbol;
        v.s = "tv_tensors." + parts.back();
        return v;
      }
      if (parts[0] == "self")
        refuse_at(t, written + ": an attribute of self, known only when the code runs; only literals are read");
      // A class attribute: class CFG: size = 224 ... CFG.size
      if (parts.size() == 2) {
        for (const auto& s : scopes)
          if (s->kind == Scope::Kind::klass && s->name == parts[0] && s->parent && s->parent->kind == Scope::Kind::module)
            if (const Binding* b = binding_of(parts[1], s.get(), 0, false)) return bound(*b, t.at, nullptr, notes, depth);
      }
      refuse_at(t, written + ": an attribute, not a literal; only literals are read");
    }
    const std::string imported = resolve(parts);
    if (!imported.empty() && starts_with(imported, "cv2.")) {
      const auto it = cv2_constants().find(imported.substr(4));
      if (it != cv2_constants().end()) {
        v.kind = Value::Kind::integer;
        v.i = it->second;
        return v;
      }
    }
    if (!imported.empty() && (last_part(imported) != imported) &&
        (imported.find("InterpolationMode.") != std::string::npos || imported.find("AutoAugmentPolicy.") != std::string::npos)) {
      v.kind = Value::Kind::symbol;
      v.s = imported.substr(imported.rfind('.', imported.rfind('.') - 1) + 1);
      return v;
    }
    return name_value(t.text, t.at, ctx, notes, depth);
  }

  // A comprehension or generator expression between open and close is refused at its bracket.
  void comprehension(const Token& open, std::size_t begin, std::size_t close) const {
    for (std::size_t k = begin; k < close; ++k) {
      if (is_op(toks[k], "(") || is_op(toks[k], "[") || is_op(toks[k], "{")) {
        k = closing(k);
        continue;
      }
      if (is_name(toks[k], "lambda")) return;
      if (is_name(toks[k], "for"))
        refuse_at(open, std::string(open.text == "[" ? "a list comprehension" : open.text == "{" ? "a dict or set comprehension"
                                                                                                  : "a generator expression") +
                            ": its value is known only when the code runs; write the items out");
    }
  }

  // ( ... ), [ ... ], { ... }
  Value bracket(Cursor& c, const Context& ctx, std::vector<std::string>& notes, int depth) const {
    const Token& open = toks[c.k];
    const std::size_t close = closing(c.k);
    Value v;
    v.at = open.at;
    Cursor in{c.k + 1, close};
    comprehension(open, c.k + 1, close);
    c.k = close + 1;
    if (open.text == "(") {
      if (in.k == close) {
        v.kind = Value::Kind::tuple;
        return v;
      }
      Value e = expression_list(in, ctx, notes, depth);
      if (in.k != close) refuse_at(toks[in.k], "cannot read this expression here ('" + toks[in.k].text + "')");
      if (e.kind == Value::Kind::tuple) e.at = open.at;
      else if (close > 0 && is_op(toks[close - 1], ",")) {  // (x,)
        Value t;
        t.kind = Value::Kind::tuple;
        t.at = open.at;
        t.items.push_back(std::move(e));
        return t;
      }
      return e;
    }
    if (open.text == "[") {
      v.kind = Value::Kind::list;
      while (in.k < close) {
        if (is_op(toks[in.k], "*")) {  // [*base, A.X()]: the items of a literal list or tuple
          const Token& star = toks[in.k++];
          Value more = expression(in, ctx, notes, depth);
          if (more.kind != Value::Kind::list && more.kind != Value::Kind::tuple)
            refuse_at(star, "'*' unpacking of " + more.repr() + ": only a literal list or tuple is read");
          for (Value& i : more.items) v.items.push_back(std::move(i));
        } else {
          v.items.push_back(expression(in, ctx, notes, depth));
        }
        if (in.k < close && !is_op(toks[in.k], ",")) refuse_at(toks[in.k], "cannot read the list here ('" + toks[in.k].text + "')");
        if (in.k < close) ++in.k;
      }
      return v;
    }
    v.kind = Value::Kind::dict;
    while (in.k < close) {
      if (is_op(toks[in.k], "**")) refuse_at(toks[in.k], "'**' unpacking in a dict: write the items out");
      Value key = expression(in, ctx, notes, depth);
      if (in.k >= close || !is_op(toks[in.k], ":")) {
        if (in.k < close && (is_name(toks[in.k], "for") || is_name(toks[in.k], "async")))
          refuse_at(toks[in.k], "a comprehension: its value is known only when the code runs; write the items out");
        refuse_at(open, "a set: only lists, tuples and dicts are read");
      }
      ++in.k;
      if (key.kind != Value::Kind::string && !(key.kind == Value::Kind::symbol && starts_with(key.s, "tv_tensors.")))
        refuse_at(toks[in.k - 1], "a dict key that is not a string: " + key.repr());
      // A value that cannot be read is refused only where it is used: a script's settings dict often
      // holds paths and run-time values beside the literals a pipeline reads.
      Value val;
      const std::size_t value_at = in.k;
      try {
        val = expression(in, ctx, notes, depth);
      } catch (const PipelineError& e) {
        val = Value{};
        val.at = toks[value_at].at;
        val.refused = e.what();
        in.k = value_at;
        while (in.k < close && !is_op(toks[in.k], ",")) {
          if (is_op(toks[in.k], "(") || is_op(toks[in.k], "[") || is_op(toks[in.k], "{")) in.k = closing(in.k);
          ++in.k;
        }
      }
      v.named.emplace_back(key.s, std::move(val));
      if (in.k < close && !is_op(toks[in.k], ",")) refuse_at(toks[in.k], "cannot read the dict here ('" + toks[in.k].text + "')");
      if (in.k < close) ++in.k;
    }
    return v;
  }

  // A Compose bound to a name (NAME = T.Compose(...), the call at token k of `st`) whose transforms
  // are changed afterwards in the same scope (NAME.transforms.insert(...)) is refused there: the
  // pipeline that runs is not the one written.
  void compose_unchanged(const Statement& st, std::size_t k) const {
    if (k != st.begin + 2 || toks[st.begin].kind != Token::Kind::name || !is_op(toks[st.begin + 1], "=")) return;
    const std::string& name = toks[st.begin].text;
    const int line = toks[st.begin].at.line;
    const int until = next_binding_line(name, st.scope, line);
    for (const Mutation& m : mutations)
      if (m.name == name && m.scope == st.scope && m.line > line && m.line < until)
        fail(m.at, name + " is changed here (" + (m.what.empty() ? m.kind : m.what) +
                       ") after it is built: the pipeline that runs is not the one written; write it out in the "
                       "Compose");
  }

  // A value the pipeline uses holds no entry that could not be read.
  static void check_read(const Value& v) {
    if (!v.refused.empty()) throw PipelineError(v.refused);
    for (const Value& i : v.items) check_read(i);
    for (const auto& kv : v.named) check_read(kv.second);
  }

  Value evaluate(const Found& f, std::vector<std::string>& notes) const {
    for (const Statement& st : statements)
      for (std::size_t k = st.begin; k < st.end; ++k)
        if (toks[k].at.line == f.at.line && toks[k].at.col == f.at.col) {
          Cursor c{k, st.end};
          Value v = primary(c, {st.scope, toks[k].at.line}, notes, 0);
          check_read(v);
          compose_unchanged(st, k);
          return v;
        }
    fail(f.at, "the pipeline is gone");
  }
};

Source::Source(const std::string& text, std::string path) : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->toks = Tokenizer(text, impl_->path).run();
  impl_->structure();
}

Source Source::read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << f.rdbuf();
  return Source(text.str(), path);
}

Source::~Source() = default;
Source::Source(Source&&) noexcept = default;

const std::string& Source::path() const { return impl_->path; }

std::string Source::where(Place at) const {
  return impl_->path + ":" + std::to_string(at.line) + ":" + std::to_string(at.col);
}

std::vector<Found> Source::pipelines(const std::string& library) const { return impl_->find(library); }

Found Source::pick(const std::string& library, const std::string& name) const {
  const std::vector<Found> all = pipelines(library);
  auto listing = [&](const std::vector<Found>& fs) {
    std::string s;
    for (const Found& f : fs) s += "\n  " + where(f.at) + "  " + f.label;
    return s;
  };
  if (all.empty()) {
    std::string msg = impl_->path + ": no " + library + " Compose(...) in this file";
    const std::string other = library == "albumentations" ? "torchvision" : "albumentations";
    if (!pipelines(other).empty()) msg += " (it has " + other + " pipelines: augment import " + other + " " + impl_->path + ")";
    throw PipelineError(msg);
  }
  if (name.empty()) {
    if (all.size() == 1) return all[0];
    throw PipelineError(impl_->path + ": " + std::to_string(all.size()) + " " + library +
                        " pipelines; pick one with --name (a name or a line):" + listing(all));
  }
  std::vector<Found> hits;
  std::string bare = name;
  if (bare.size() > 2 && bare.compare(bare.size() - 2, 2, "()") == 0) bare.resize(bare.size() - 2);
  const bool line = !name.empty() && name.find_first_not_of("0123456789") == std::string::npos;
  for (const Found& f : all) {
    if (line ? std::to_string(f.at.line) == name
             : (f.label == name || std::find(f.names.begin(), f.names.end(), bare) != f.names.end()))
      hits.push_back(f);
  }
  if (hits.size() == 1) return hits[0];
  if (hits.empty())
    throw PipelineError(impl_->path + ": no " + library + " pipeline named " + name + "; the file has:" + listing(all));
  throw PipelineError(impl_->path + ": " + std::to_string(hits.size()) + " pipelines answer to " + name +
                      "; pick one by its line (--name LINE):" + listing(hits));
}

Value Source::evaluate(const Found& found, std::vector<std::string>& notes) const {
  return impl_->evaluate(found, notes);
}

}  // namespace aug::py
