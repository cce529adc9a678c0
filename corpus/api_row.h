#pragma once

// What the corpus layer knows of each API a case may call (the case's "api", create_block_mask,
// ...): a row of plain data and the API's own fields of the case. The rows are made by
// apis/NAME.cpp, one file per API, and listed once in apis/registry.cpp, which defines
// CorpusApis(): a lookup this layer declares and a higher layer defines at link time (every
// executable and test links the apis object library), so that this layer never includes upward and
// no row registers itself during static initialisation.

#include "corpus/case.h"
#include "corpus/field_reader.h"
#include "corpus/record_fields.h"

#include <string>
#include <string_view>
#include <vector>

namespace corpus {

struct CaseReading; // corpus/case_fields.h: the sidecar folder and the version read so far

// A field of the case that one API owns, written after the common field `after` names, or after
// the fields every case has (before provenance) where it names none, in the rows' order. Its
// reader runs for every case, so it refuses the field in another API's case (OwnsField below).
struct ApiField {
  std::string_view name;
  // AbsentField() (or null) where the case has none; the reading gives the sidecar folder.
  FieldJson (*write)(const Case &c, const CaseReading &reading);
  void (*read)(FieldReader &reader, const std::string &key, Case &c, const CaseReading &reading);
  std::string_view after; // the common field it follows ("": after all of them)
};

struct CorpusApi {
  std::string_view name;        // the case's "api"
  std::string_view noun;        // how a sentence names its cases: "tensor program"
  int format_version = 1;       // the lowest case format version that holds a case of it
  bool block_mask = true;       // the case has a create_block_mask field (the shape mask_mod sees)
  std::string_view mask_mod_is; // what mask_mod holds, said when it is missing ("" for a mask)
  // The case's function is a program over tensors (not a mask of indices): the syntax-tree
  // passes parse it as one, and a draft names what it calls rather than the API.
  bool program = false;
  bool from_mask_module = true;   // `convert --api NAME` may make one from a mask module
  bool mask_mod_optional = false; // a case may leave mask_mod out (attention without a mask)
  bool score_mod = false;         // a case may have a score_mod
  bool call_dtype = false;        // a later call may change the inputs' dtype
  // Its result is a BlockMask: a wrong result is keyed by the tables it differs in, and a repro
  // makes it with create_block_mask's options and compares it dense.
  bool returns_block_mask = false;
  std::string_view issue_label; // the label an issue draft gives its bugs ("": none)
  // A case of it is one torch.compile call of its function: no later calls, no constants, no
  // other compile path or scope (its reader refuses them; a mutation never adds them).
  bool one_call = false;
  std::vector<ApiField> fields; // its own fields of the case
};

// Every API, in the order of its registration list (apis/registry.cpp).
const std::vector<CorpusApi> &CorpusApis();

// The row named `name`, or a row of defaults (a mask API's) for a name no row has: a case's "api"
// is checked against ApiNames() where it is read.
const CorpusApi &CorpusApiOf(std::string_view name);

// Whether the row of the case's API lists its own field `field`.
bool OwnsField(const Case &c, std::string_view field);

// The names of CorpusApis(), in order: the values a case's "api" may have.
const std::vector<std::string> &ApiNames();

} // namespace corpus
