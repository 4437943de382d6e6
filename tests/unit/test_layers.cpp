// The include order of docs/architecture.md, held: every `#include "..."` under apps/, lib/ and
// kernels/ points into its own folder or into a folder on a line below its own in the layers block.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/testing.hpp"

namespace aug::test_layers {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// Folder -> its line in the block (0 is the top). A line lists its folders first ("lib/x lib/y"),
// then what they hold.
std::map<std::string, int> read_layers(const std::string& doc) {
  std::map<std::string, int> level;
  const auto a = doc.find("<!-- layers:begin -->"), b = doc.find("<!-- layers:end -->");
  if (a == std::string::npos || b == std::string::npos || b < a) return level;
  std::istringstream lines(doc.substr(a, b - a));
  const std::regex folder("^(apps|lib|kernels)/[A-Za-z0-9_-]+$");
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string w;
    bool any = false;
    while (words >> w && std::regex_match(w, folder)) {
      level[w] = n;
      any = true;
    }
    if (any) ++n;
  }
  return level;
}

// Every include that breaks the order under `root`, as "file:line: message".
std::vector<std::string> layering_violations(const fs::path& root) {
  std::vector<std::string> out;
  const std::map<std::string, int> level = read_layers(read(root / "docs/architecture.md"));
  if (level.empty()) return {"docs/architecture.md has no layers block (<!-- layers:begin --> ... <!-- layers:end -->)"};
  const std::regex include(R"re(^\s*#\s*include\s*"((apps|lib|kernels)/[^"]+)")re");
  auto folder_of = [](const std::string& path) {
    const auto a = path.find('/');
    const auto b = path.find('/', a + 1);
    return path.substr(0, b);
  };
  for (const char* top : {"apps", "lib", "kernels"}) {
    if (!fs::exists(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".inc" && ext != ".h"))
        continue;
      const std::string file = fs::relative(e.path(), root).generic_string();
      if (file.find('/') == file.rfind('/')) continue;  // a file directly under apps/, lib/ or kernels/
      const std::string from = folder_of(file);
      const auto src = level.find(from);
      if (src == level.end()) {
        out.push_back(file + ": its folder " + from + " is not in docs/architecture.md's layers");
        continue;
      }
      std::istringstream text(read(e.path()));
      std::string line;
      for (int n = 1; std::getline(text, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, include)) continue;
        const std::string target = m[1], to = folder_of(target);
        if (to == from) continue;
        const auto dst = level.find(to);
        if (dst == level.end()) {
          out.push_back(file + ":" + std::to_string(n) + ": includes " + target + ", whose folder " + to +
                        " is not in docs/architecture.md's layers");
        } else if (dst->second <= src->second) {
          out.push_back(file + ":" + std::to_string(n) + ": includes " + target + ": " + from + " may not include " +
                        to + (dst->second == src->second ? ", beside it" : ", above it") +
                        " in docs/architecture.md's layers");
        }
      }
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

TEST(Layers, EveryIncludePointsDownTheDocumentedOrder) {
  const auto violations = layering_violations(testing::source_dir());
  EXPECT_TRUE(violations.empty()) << violations.size() << " include(s) break the layers:" << joined(violations);
}

TEST(Layers, EveryDocumentedFolderExists) {
  const fs::path root = testing::source_dir();
  const auto level = read_layers(read(root / "docs/architecture.md"));
  EXPECT_GE(level.size(), 10u);
  for (const auto& [folder, n] : level) EXPECT_TRUE(fs::is_directory(root / folder)) << folder << " (line " << n << ")";
}

// Stage files are compiled eight to a batch (lib/CMakeLists.txt, AUGMENT_UNITY): each keeps its
// internals in `namespace <file name>_impl`, so that two stages' kScale never meet in one batch,
// and a file that does not is compiled alone (slower, never wrong). Every file that registers a stage
// keeps the convention.
TEST(Layers, EveryStageFileKeepsItsInternalsInItsOwnNamespace) {
  const fs::path root = testing::source_dir() / "lib" / "stages";
  const std::regex registers("\\nStageType \\w+_stage\\(\\)");
  int stages = 0;
  std::vector<std::string> missing;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".cpp") continue;
    const std::string text = read(e.path());
    if (!std::regex_search(text, registers)) continue;
    ++stages;
    const std::string own = "\nnamespace " + e.path().stem().string() + "_impl {\nnamespace {\n";
    if (text.find(own) == std::string::npos) missing.push_back(fs::relative(e.path(), root).string());
  }
  EXPECT_GE(stages, 40);
  std::string list;
  for (const std::string& m : missing) list += "\n  lib/stages/" + m;
  EXPECT_TRUE(missing.empty()) << "stage files without their own namespace:" << list;
}

// The kernels' .cu files and host drivers are compiled eight to a group, per folder
// (kernels/CMakeLists.txt, AUGMENT_UNITY) under the same rule: every anonymous namespace sits
// directly inside `namespace <file name>_impl`.
TEST(Layers, EveryKernelFileKeepsItsInternalsInItsOwnNamespace) {
  const fs::path root = testing::source_dir() / "kernels";
  int files = 0;
  std::vector<std::string> missing;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const std::string name = e.path().filename().string();
    const bool host_driver = name.size() > 8 && name.ends_with("_cpu.cpp");
    if (e.path().extension() != ".cu" && !host_driver) continue;
    ++files;
    const std::string text = read(e.path());
    const std::string own = "\nnamespace " + e.path().stem().string() + "_impl {\nnamespace {\n";
    std::size_t anonymous = 0, inside = 0;
    for (std::size_t at = text.find("\nnamespace {\n"); at != std::string::npos; at = text.find("\nnamespace {\n", at + 1))
      ++anonymous;
    for (std::size_t at = text.find(own); at != std::string::npos; at = text.find(own, at + 1)) ++inside;
    if (anonymous != inside) missing.push_back(fs::relative(e.path(), root).string());
  }
  EXPECT_GE(files, 60);
  std::string list;
  for (const std::string& m : missing) list += "\n  kernels/" + m;
  EXPECT_TRUE(missing.empty()) << "kernel files with an anonymous namespace outside their own:" << list;
}

// The check finds what it looks for: the real block and a tree with a planted upward include, a
// sideways one and an undocumented folder.
TEST(Layers, APlantedUpwardIncludeFails) {
  const testing::TempDir dir;
  const fs::path& tmp = dir.path();
  fs::create_directories(tmp / "docs");
  fs::copy_file(testing::source_dir() / "docs/architecture.md", tmp / "docs/architecture.md");
  auto write = [&](const std::string& rel, const std::string& text) {
    fs::create_directories((tmp / rel).parent_path());
    std::ofstream(tmp / rel) << text;
  };
  write("lib/core/fine.hpp", "#pragma once\n#include \"kernels/core/common.hpp\"\n#include \"lib/core/image.hpp\"\n");
  EXPECT_TRUE(layering_violations(tmp).empty()) << joined(layering_violations(tmp));

  write("lib/core/planted.hpp", "#pragma once\n#include <vector>\n#include \"lib/run/runner.hpp\"\n");
  auto v = layering_violations(tmp);
  ASSERT_EQ(v.size(), 1u) << joined(v);
  EXPECT_EQ(v[0], "lib/core/planted.hpp:3: includes lib/run/runner.hpp: lib/core may not include lib/run, above it "
                  "in docs/architecture.md's layers");

  fs::remove(tmp / "lib/core/planted.hpp");
  write("lib/io/sideways.cpp", "#include \"lib/params/spec.hpp\"\n");
  write("lib/newfolder/x.cpp", "int x;\n");
  v = layering_violations(tmp);
  ASSERT_EQ(v.size(), 2u) << joined(v);
  EXPECT_NE(joined(v).find("lib/io/sideways.cpp:1: includes lib/params/spec.hpp: lib/io may not include lib/params, "
                           "beside it"),
            std::string::npos)
      << joined(v);
  EXPECT_NE(joined(v).find("lib/newfolder/x.cpp: its folder lib/newfolder is not in docs/architecture.md's layers"),
            std::string::npos)
      << joined(v);
}

}  // namespace
}  // namespace aug::test_layers
