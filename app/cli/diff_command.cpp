// `asyncscope diff A B [--json OUT]`: the comparison of two traces of any
// kind (trace_diff.h), printed, and written as JSON when asked.
#include <ostream>
#include <string>

#include "app/cli/command.h"
#include "app/cli/commands.h"
#include "app/cli/report.h"
#include "engine/base/format.h"
#include "engine/base/output_file.h"
#include "engine/base/quote.h"
#include "engine/trace/insight.h"
#include "engine/trace/profile_model.h"
#include "engine/trace/trace_diff.h"

namespace asyncscope::app {
namespace {

// Columns a terminal gives UTF-8 text: one per code point (the tables' µ and × included).
size_t columns(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}
std::string pad_left(const std::string& text, size_t width) {
  const size_t n = columns(text);
  return n >= width ? text : std::string(width - n, ' ') + text;
}
std::string pad_right(const std::string& text, size_t width) {
  const size_t n = columns(text);
  return n >= width ? text : text + std::string(width - n, ' ');
}


// Exit code 2 with one line on err for a file it cannot read or an output
// it cannot write (an output that is one of the traces included).
int diff_traces(const std::string& a, const std::string& b, const trace::AnalysisOptions& options,
                const std::string* json, std::ostream& out, std::ostream& err) {
  try {
    OutputSet outputs(out, err);
    outputs.add_input("the first trace", a);
    outputs.add_input("the second trace", b);
    if (json != nullptr) outputs.add("--json", *json);
    const trace::OpenedTrace ta = trace::open_trace(a, options);
    const trace::OpenedTrace tb = trace::open_trace(b, options);
    trace::RunInsight ia, ib;
    ia.update(ta.model, true);
    ib.update(tb.model, true);
    const trace::TraceDiff d =
        trace::diff_traces({&ta.model, &ia, ta.figures.get()}, {&tb.model, &ib, tb.figures.get()});
    out << "a: " << escape_controls(a) << " (" << ta.format_text() << ")\n   " << d.verdict_a << "\n";
    out << "b: " << escape_controls(b) << " (" << tb.format_text() << ")\n   " << d.verdict_b << "\n\n";
    // Columns right-aligned by what a terminal shows (µs and × are one
    // column each, two bytes), always two spaces apart however long a value is.
    const auto row = [&out](const std::string& what, const std::string& a, const std::string& b, const std::string& f) {
      out << "  " << pad_right(what, 30) << "  " << pad_left(a, 10) << "  " << pad_left(b, 10) << "  " << pad_left(f, 8)
          << "\n";
    };
    row("", "a", "b", "b / a");
    for (const trace::DiffRow& r : d.summary) row(r.what, r.a, r.b, r.factor ? format_value(*r.factor, "x") : "-");
    out << "\n  per op name, largest change in time first (count a, count b, time a, time b):\n";
    for (size_t i = 0; i < d.ops.size() && i < 15; ++i) {
      const trace::OpDelta& o = d.ops[i];
      std::string name = escape_controls(o.name);
      if (name.size() > 44) name = name.substr(0, 41) + "...";
      out << "    " << pad_right(name, 44) << "  " << (o.gpu ? "GPU" : "CPU") << "  " << pad_left(std::to_string(o.count_a), 6)
          << "  " << pad_left(std::to_string(o.count_b), 6) << "  " << pad_left(format_duration(o.total_a_ns), 9) << "  "
          << pad_left(format_duration(o.total_b_ns), 9) << "\n";
    }
    if (json == nullptr) return 0;
    const std::string text = trace::diff_json(d, a, b);
    outputs.set_content("--json", [&text](std::ostream& o) { o << text; });
    outputs.commit();
  } catch (const std::exception& e) {
    say(err, e.what());
    return 2;
  }
  return 0;
}


class DiffCommand final : public Command {
 public:
  CLI::App* declare(CLI::App& root) override {
    diff_ = root.add_subcommand("diff",
                                "Compare two traces (ours or profilers', in any mix): what changed, and per op name the "
                                "count and time in each");
    diff_->add_option("A", a_, "the first trace (the baseline)")->required();
    diff_->add_option("B", b_, "the second trace")->required();
    diff_->add_option("--json", json_, "write the comparison as JSON");
    diff_->add_flag("--complete-steps", complete_steps_,
                    "profilers' traces with two or more ProfilerStep ranges: count only the steps before the last");
    return diff_;
  }
  int run(const CommandIo& io) override {
    trace::AnalysisOptions options;
    options.complete_steps_only = complete_steps_;
    return diff_traces(a_, b_, options, diff_->count("--json") > 0 ? &json_ : nullptr, io.out, io.err);
  }

 private:
  CLI::App* diff_ = nullptr;
  std::string a_, b_, json_;
  bool complete_steps_ = false;
};

}  // namespace

std::unique_ptr<Command> diff_command() { return std::make_unique<DiffCommand>(); }

}  // namespace asyncscope::app
