#pragma once
// `nodegen run --report FILE.json`: the run's figures as JSON (fields listed in docs/output-format.md).
#include <string_view>

#include <nlohmann/json.hpp>

#include "nodegen/input/domain_file.hpp"
#include "nodegen/io/pending_file.hpp"
#include "run_command.hpp"
#include "run_totals.hpp"

namespace nodegen::cli {

// The names of the boundary ids as a JSON array: element k - 1 names id k (as types holds -k).
nlohmann::json boundary_names(const DomainFile& domain);

nlohmann::json run_report(const RunArgs& args, const DomainFile& domain, std::string_view backend,
                          const RunTotals& totals, const std::filesystem::path& output);

// Writes the report's temporary (committed with the outputs, after everything is written). Throws
// InputError naming the report when it cannot be written.
void write_report(const io::PendingFile& file, const nlohmann::json& report);

}  // namespace nodegen::cli
