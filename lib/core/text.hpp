// Small text helpers shared by messages and the CLI.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace aug {

std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` candidates close to `name` (edit distance at most a third of its length and
// below it, or a shared prefix), closest first.
std::vector<std::string> closest(std::string_view name, const std::vector<std::string>& candidates,
                                 std::size_t limit = 3);

std::string join(const std::vector<std::string>& items, std::string_view sep);
std::string quoted_list(const std::vector<std::string>& items);  // "a", "b" or "c"

// Shortest decimal text that reads back as the same double ("0.1", "2", "1e-06").
std::string format_number(double v);

// A finite decimal number written as the whole of `token` (an optional leading '+' allowed, no
// spaces): what label files hold. False for anything else.
bool parse_finite_double(std::string_view token, double& out);

// Appends code point `cp` (at most 0x10FFFF) to `out` in UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

}  // namespace aug
