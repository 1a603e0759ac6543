// The in-process API's domains (nodegen.hpp): load_domain, parse_domain and what a DomainSpec tells.
// Sample files are read in a child process, as the command reads them: a corrupt file must not take
// the user's program down with it (io/sample_file.hpp).
#include <memory>
#include <variant>

#include "api/api_state.hpp"

namespace nodegen {

using api_detail::LoadedDomain;

DomainSpec load_domain(const std::filesystem::path& file) {
  return api_detail::translating_errors([&] {
    return DomainSpec(std::make_shared<const LoadedDomain>(LoadedDomain{load_domain_file(file, LoadOptions{})}));
  });
}

DomainSpec parse_domain(const std::string& json_text, const std::filesystem::path& path) {
  return api_detail::translating_errors([&] {
    return DomainSpec(
        std::make_shared<const LoadedDomain>(LoadedDomain{parse_domain_text(json_text, path, LoadOptions{})}));
  });
}

int DomainSpec::dim() const { return loaded_->file.dim; }

std::vector<std::string> DomainSpec::part_names() const {
  return std::visit([](const auto& d) { return d->boundary_names(); }, loaded_->file.domain);
}

std::string DomainSpec::spacing() const { return loaded_->file.spacing.describe(); }

const std::filesystem::path& DomainSpec::path() const { return loaded_->file.path; }

}  // namespace nodegen
