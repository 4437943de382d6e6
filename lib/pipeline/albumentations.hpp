// `augment import albumentations`: a pipeline saved with Albumentations' A.save / to_dict
// ({"__version__", "transform": {"__class_fullname__": "Compose", "transforms": [...]}}, JSON or
// YAML) turned into an augment pipeline. Each transform augment has becomes its stage with the
// parameters translated (names, ranges, units, defaults of Albumentations 1.x and 2.x); OneOf,
// SomeOf, Sequential and nested Compose become compositions; Compose's bbox_params become the
// "labels" block. Transforms that do not change pixels for a file on disk (Normalize, ToTensorV2,
// ToFloat, FromFloat) are left out with a note. Anything else stops the import with the list of
// transforms augment does not have, each with the closest stage it does have.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace aug {

struct Imported {
  nlohmann::ordered_json pipeline;  // {"version": 1, "description", "stages", ["labels"]}
  std::vector<std::string> notes;   // where the translation approximates or leaves something out
  // Each stage's JSON pointer in the pipeline ("/stages/3/stages/0") and the place of the
  // transform it came from, as messages name it ("transform/transforms/3/transforms/0").
  std::vector<std::pair<std::string, std::string>> stage_places;
};

// Where each transform of a saved pipeline was written, by its place in the saved JSON
// ("transform", "transform/transforms/2" -> "train.py:31:13"): messages name those places instead.
using TransformPlaces = std::map<std::string, std::string>;

// Throws PipelineError naming the file (and for an unsupported transform, every one with its place
// "transform/transforms/2", or where `places` puts it, and the closest stage).
Imported import_albumentations(const nlohmann::json& saved, const std::string& source,
                               const TransformPlaces* places = nullptr);

// Loads an imported pipeline as `augment run` would (Pipeline::parse), so that a value out of a
// stage's range is reported; the message names the stage's pointer and the place it came from.
// Negative zeros (a negated limit of 0) are written as 0 first.
void check_imported(Imported& imported, const std::string& source);

// The file (A.save's JSON, or YAML for .yaml / .yml), imported and then checked as a pipeline.
Imported import_albumentations_file(const std::string& path);

// The pipeline as a file: top-level keys one per line, each stage on a line of its own (the stages
// of a composition indented under it).
std::string pipeline_text(const nlohmann::ordered_json& pipeline);

// For a pipeline that names another library's transform as a stage ({"stage": "HorizontalFlip"}):
// what to write instead, e.g. `that is Albumentations' name; write {"stage": "flip", "direction":
// "horizontal"}` (its other keys translated as the importer would), or that augment has no such
// stage yet and the closest one. Empty when the name is no known transform.
std::string other_library_hint(const std::string& name, const nlohmann::json& object);

// The mapping, one row per Albumentations transform: the docs table (docs/albumentations.md).
std::string albumentations_table_markdown();

// Albumentations' compositions (Compose, ReplayCompose, Sequential, OneOf, SomeOf): what holds
// "transforms".
bool is_albumentations_composition(const std::string& name);

}  // namespace aug
