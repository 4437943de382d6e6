// The files generated from the stages' declarations: the pipeline's JSON Schema, the README's stage
// table, the Albumentations import table, the stage pages docs/stages/<family>.md and the fuzz
// dictionaries. `augment-docs` writes them (`cmake --build build --target docs`) and, with
// --check, fails when one is stale (a test runs it).
#pragma once

#include <string>
#include <vector>

namespace aug {

struct GeneratedText {
  std::string path;  // relative to the source tree
  std::string text;
  // Set: `text` is the part of the file between these two lines (the rest is written by hand).
  std::string begin, end;
};

std::vector<GeneratedText> generated_texts();

}  // namespace aug
