// augment-docs [--check] [SOURCE_DIR]: writes the files generated from the stages' declarations
// (lib/pipeline/docs.hpp) into the source tree, or with --check lists the stale ones and exits 1.
// `cmake --build build --target docs` runs it on this tree; the test suite runs --check.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "lib/pipeline/docs.hpp"

namespace fs = std::filesystem;

namespace {

bool read(const fs::path& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  fs::path root = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") check = true;
    else if (a == "-h" || a == "--help") {
      std::puts("usage: augment-docs [--check] [SOURCE_DIR]");
      return 0;
    } else root = a;
  }
  int stale = 0;
  for (const aug::GeneratedText& g : aug::generated_texts()) {
    const fs::path path = root / g.path;
    std::string old, now = g.text;
    const bool exists = read(path, old);
    if (!g.begin.empty()) {
      // Only the part between the two marker lines is generated.
      const auto a = exists ? old.find(g.begin + "\n") : std::string::npos;
      const auto b = a == std::string::npos ? a : old.find(g.end, a);
      if (b == std::string::npos) {
        std::fprintf(stderr, "augment-docs: %s has no lines \"%s\" ... \"%s\"\n", path.c_str(), g.begin.c_str(),
                     g.end.c_str());
        return 2;
      }
      now = old.substr(0, a + g.begin.size() + 1) + g.text + old.substr(b);
    }
    if (exists && old == now) continue;
    ++stale;
    if (check) {
      std::fprintf(stderr, "augment-docs: %s is stale\n", g.path.c_str());
      continue;
    }
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << now;
    std::printf("augment-docs: wrote %s\n", g.path.c_str());
  }
  if (check && stale) {
    std::fprintf(stderr, "augment-docs: %d generated file(s) differ from the stages' declarations: run "
                         "`cmake --build build --target docs` and commit the result\n", stale);
    return 1;
  }
  return 0;
}
