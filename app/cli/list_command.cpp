// `asyncscope list` (the demos and their parameters) and `asyncscope ops`
// (the op table, as a table, JSON or the page docs/ops.md).
#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/report.h"

namespace asyncscope::app {
namespace {

class ListCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    return root.add_subcommand("list", "List the demos and their parameters");
  }
  int run(const CommandIo& io) override {
    print_list(io.out);
    return 0;
  }
};

class OpsCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    CLI::App* ops = root.add_subcommand("ops", "List the ops of the Python frontends: names in nd and torch, gradient, devices");
    ops->add_flag("--json", json_, "print the table as JSON");
    ops->add_flag("--markdown", markdown_, "print the table as the page docs/ops.md");
    return ops;
  }
  int run(const CommandIo& io) override {
    if (markdown_) {
      print_ops_markdown(io.out);
    } else {
      print_ops(io.out, json_);
    }
    return 0;
  }

 private:
  bool json_ = false, markdown_ = false;
};

}  // namespace

std::unique_ptr<Command> list_command() { return std::make_unique<ListCommand>(); }
std::unique_ptr<Command> ops_command() { return std::make_unique<OpsCommand>(); }

}  // namespace asyncscope::app
