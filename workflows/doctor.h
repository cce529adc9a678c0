#pragma once

#include "fuzzer/matrix/compilers.h"
#include "support/shared_options.h"
#include "support/tool_paths.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace workflows {

struct DoctorOptions {
  bool json = false;
  std::vector<std::string> compilers = support::options::MatrixCompilers::Default();
};

// `inductor-fuzz doctor`: 0 when everything needed works, 2 with one line per problem
// saying what is wrong and how to fix it.
int Doctor(const DoctorOptions &options, const support::ToolPaths &paths, std::ostream &out);

} // namespace workflows
