// Pipelines written in YAML: the same document as the JSON form (same schema, same checks), read
// into JSON with where each value sits in the file, so that every error names file:line:column.
#pragma once

#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace aug {

// "x.yaml" and "x.yml" (any case) are YAML pipelines; everything else is JSON.
bool is_yaml_path(const std::string& path);

// The YAML text as JSON: mappings become objects, sequences arrays; plain scalars are null (~, null,
// empty), booleans (true / false), integers, numbers or strings, quoted scalars always strings.
// `marks` receives the 1-based line and column of every value by JSON pointer ("/stages/0/sigma").
// Throws PipelineError "source:line:column: invalid YAML: ..." for a syntax error, an alias to
// nothing, a duplicate key or a key that is not a string.
nlohmann::json yaml_to_json(const std::string& text, const std::string& source,
                            std::map<std::string, std::pair<int, int>>& marks);

}  // namespace aug
