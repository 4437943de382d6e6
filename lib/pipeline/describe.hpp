// Everything users read about stages comes from the specs: `augment stages` (also as the README's
// Markdown table), `augment describe` (text and JSON), `augment schema` (the JSON Schema of the
// pipeline format) and the stage pages docs/stages/<family>.md.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/params/spec.hpp"

namespace aug {

std::string describe_text(const StageSpec& spec);
nlohmann::json describe_json(const StageSpec& spec);
std::string stages_text();     // one line per stage and composition
nlohmann::json stages_json();
nlohmann::json pipeline_schema();
// The README's stage table (Markdown): per stage and composition its summary and parameters
// with their defaults (`augment stages --markdown`).
std::string stage_table_markdown();

// The stage families in catalog order (each a folder lib/stages/<family>/), and the page
// docs/stages/<family>.md of one: per stage its summary, notes, parameters, types, tolerance,
// arithmetic, the transforms it imports and its benchmark counterpart.
std::vector<std::string> stage_families();
std::string family_page_markdown(const std::string& family);

}  // namespace aug
