// `augment import albumentations train.py` and `augment import torchvision train.py`: a pipeline
// written as Python code, read without running it (lib/pipeline/python_source.hpp).
//
// Albumentations: the evaluated Compose call becomes the JSON that A.save would write for it (each
// positional argument placed by the transform's signature in Albumentations 1.x or 2.x, p written
// with the transform's own default), which import_albumentations translates as it does a saved
// file; messages name the transform's place in the Python file.
//
// torchvision: each transform (transforms and transforms.v2) becomes its stage directly; the
// conversions that only change what a training loader receives (ToTensor, Normalize, ...) are left
// out with a note.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_source.hpp"

namespace aug {

// The pipeline of `path` that `name` picks (empty: the only one), imported and checked. `release`
// (1 or 2): the Albumentations release the script is written for; 0: as its calls' keywords and
// transforms say, else 1.x (with a note where the two releases' defaults differ).
Imported import_albumentations_python(const std::string& path, const std::string& name, int release = 0);
Imported import_torchvision_python(const std::string& path, const std::string& name);

// What A.save would write for the evaluated Compose call; `places` receives each transform's place
// in the file by its place in the saved JSON, `notes` where a positional argument's version was
// guessed. Throws PipelineError "file:line:col: ..." for an argument that cannot be placed.
nlohmann::json albumentations_saved(const py::Source& source, const py::Value& compose,
                                    std::vector<std::string>& notes, TransformPlaces& places, int release = 0);

// The evaluated torchvision Compose call as a pipeline (not yet checked).
Imported torchvision_pipeline(const py::Source& source, const py::Value& compose);

// Whether the importer knows the positional parameters of this Albumentations class.
bool albumentations_signature_known(const std::string& name);

// For a torchvision transform's name used as a stage: the stage to write instead ("" when the name
// is not torchvision's).
std::string torchvision_hint(const std::string& name);

// The torchvision mapping, one row per transform (docs/albumentations.md).
std::string torchvision_table_markdown();

}  // namespace aug
