// ptx_forms [--quiet] [--list FILE] FILE.ptx...: reads PTX modules (named, or listed one per line
// in FILE) with the interpreter and reports the instruction forms
// they use, how often, and every instruction the interpreter does not execute. Exit status 1 when
// there is one (or a module cannot be read): the build's kernels must all run under the stand-in.
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/ptx/ptx.hpp"

int main(int argc, char** argv) {
  std::map<std::string, std::size_t> forms;
  std::size_t kernels = 0, instructions = 0, unsupported = 0;
  bool quiet = false;
  int bad = 0;
  std::vector<std::string> paths;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--list" && a + 1 < argc) {
      std::ifstream list(argv[++a]);
      if (!list) {
        std::cerr << "ptx_forms: cannot read the list " << argv[a] << "\n";
        return 2;
      }
      for (std::string line; std::getline(list, line);)
        if (!line.empty()) paths.push_back(line);
    } else {
      paths.push_back(arg);
    }
  }
  for (const std::string& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::cerr << "ptx_forms: cannot read " << path << "\n";
      ++bad;
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    try {
      const auto m = ptx::Module::parse(text.str(), path);
      for (const auto& [form, n] : m->forms()) forms[form] += n;
      for (const ptx::Kernel& k : m->kernels()) {
        ++kernels;
        instructions += k.size();
        for (const std::string& u : k.unsupported()) {
          std::cout << path << ": kernel " << k.name() << ": not executed: " << u << "\n";
          ++unsupported;
        }
      }
    } catch (const ptx::ParseError& e) {
      std::cout << "ptx_forms: " << e.what() << "\n";
      ++bad;
    }
  }
  if (!quiet)
    for (const auto& [form, n] : forms) std::cout << n << "\t" << form << "\n";
  std::cout << "ptx_forms: " << kernels << " kernels, " << instructions << " instructions, " << forms.size()
            << " forms; " << unsupported << " not executed; " << bad << " modules unreadable\n";
  return unsupported || bad ? 1 : 0;
}
