#pragma once

namespace qsa::cli {

const char* tool_version();
const char* spec_version();
const char* git_commit();

}  // namespace qsa::cli
