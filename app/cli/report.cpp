#include "app/cli/report.h"

#include <filesystem>
#include <algorithm>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "engine/base/format.h"
#include "engine/base/input_file.h"
#include "engine/base/quote.h"
#include "engine/demos/registry.h"
#include "engine/tensor/op_table.h"
#include "engine/tensor/blas.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/profile_model.h"
#include "engine/trace/profile_report.h"
#include "engine/trace/model_slice.h"
#include "engine/trace/trace_diff.h"
#include "widgets/timeline_svg.h"
#include "engine/base/output_file.h"

namespace asyncscope::app {

// One line of a message on err; whatever text it carries from elsewhere (an
// option's value, a path, a library's error) cannot break the line or send
// escape sequences to the terminal.
void say(std::ostream& err, const std::string& message) { err << "asyncscope: " << escape_controls(message) << "\n"; }

std::string default_text(const demos::Param& p) {
  if (p.kind == demos::Param::Kind::choice) return p.default_choice;
  return format_value(p.default_value, "");
}

void print_list(std::ostream& out) {
  for (const auto& demo : demos::all_demos()) {
    out << demo->name() << "\n  " << demo->summary() << "\n";
    for (const demos::Param& p : demo->params()) {
      std::string flag = "--" + p.name;
      if (p.kind == demos::Param::Kind::choice) {
        std::string choices;
        for (const auto& c : p.choices) choices += (choices.empty() ? "" : "|") + c;
        flag += " " + choices;
      } else {
        flag += p.kind == demos::Param::Kind::integer ? " N" : " X";
      }
      // A flag longer than its column keeps two spaces before its help.
      if (flag.size() > 24) flag += "\n" + std::string(30, ' ');
      out << "    " << std::left << std::setw(26) << flag << p.help << " (default " << default_text(p) << ")\n";
    }
  }
}

void print_ops_markdown(std::ostream& out) {
  const auto names = [](std::string_view list) {
    std::string text;
    for (const std::string_view name : frontend_names(list)) text.append(text.empty() ? "`" : "`, `").append(name);
    return text.empty() ? std::string("-") : text + "`";
  };
  const auto cell = [](std::string text) {  // a table cell: its pipes escaped
    for (size_t at = 0; (at = text.find('|', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\|");
    return text;
  };
  out << "# The op table\n\n"
         "Every op of the engine that the Python editions reach, as the op table\n"
         "(`engine/tensor/op_table.cpp`) declares it: its names in MXNet's `nd` and in\n"
         "the PyTorch edition (functions, and the methods and operators of arrays),\n"
         "whether it has a gradient, where it runs, the dtypes it takes. This page is\n"
         "written by `build/bin/asyncscope ops --markdown > docs/ops.md`, and a test\n"
         "(`Cli.TheOpsPageIsTheOpTable`) fails when it differs from the table.\n\n"
         "| op | kind | nd | torch | operators | grad | devices | dtypes | what it does |\n"
         "|---|---|---|---|---|---|---|---|---|\n";
  for (const OpDef& op : op_table()) {
    out << "| `" << op.name << "` | " << to_string(op.kind) << " | " << names(op.nd) << " | " << names(op.torch) << " | "
        << cell(names(op.operators)) << " | " << (op.gradient ? "yes" : "no") << " | " << (op.cuda ? "cpu, cuda" : "cpu")
        << " | " << op.dtypes << " | " << cell(std::string(op.doc)) << " |\n";
  }
}

void print_ops(std::ostream& out, bool json) {
  const auto joined = [](std::string_view list) {
    std::string text;
    for (const std::string_view name : frontend_names(list)) text.append(text.empty() ? "" : ", ").append(name);
    return text.empty() ? std::string("-") : text;
  };
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    std::vector<std::string> all_dtypes;
    for (const DType t : kAllDTypes) all_dtypes.emplace_back(name(t));
    for (const OpDef& op : op_table()) {
      const auto names = [](std::string_view list) {
        nlohmann::json a = nlohmann::json::array();
        for (const std::string_view n : frontend_names(list)) a.push_back(std::string(n));
        return a;
      };
      rows.push_back({{"name", op.name},
                      {"kind", to_string(op.kind)},
                      {"nd", names(op.nd)},
                      {"torch", names(op.torch)},
                      {"operators", names(op.operators)},
                      {"gradient", op.gradient},
                      {"devices", op.cuda ? nlohmann::json{"cpu", "cuda"} : nlohmann::json{"cpu"}},
                      {"dtypes", op.dtypes == "all" ? nlohmann::json(all_dtypes) : nlohmann::json{std::string(op.dtypes)}},
                      {"doc", op.doc}});
    }
    out << rows.dump(2) << "\n";
    return;
  }
  struct Row {
    std::string cells[8];
  };
  std::vector<Row> rows{{{"op", "kind", "nd", "torch", "operators", "grad", "devices", "dtypes"}}};
  std::vector<std::string> docs{"doc"};
  for (const OpDef& op : op_table()) {
    rows.push_back({{std::string(op.name), to_string(op.kind), joined(op.nd), joined(op.torch), joined(op.operators),
                     op.gradient ? "yes" : "no", op.cuda ? "cpu, cuda" : "cpu", std::string(op.dtypes)}});
    docs.emplace_back(op.doc);
  }
  size_t width[8] = {};
  for (const Row& r : rows) {
    for (int c = 0; c < 8; ++c) width[c] = std::max(width[c], r.cells[c].size());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int c = 0; c < 8; ++c) out << std::left << std::setw(static_cast<int>(width[c] + 2)) << rows[i].cells[c];
    out << docs[i] << "\n";
  }
  out << "dtypes: all = float32, float64, int32, int64, uint8, bool on the CPU (CUDA kernels: float32)\n";
}

namespace {

// "NAME (knob=value ...)", then a row per result and the notes; every text
// escaped (a trace file's may hold anything).
void print_table(std::ostream& out, const trace::RunOrigin& run) {
  out << escape_controls(run.program) << " (";
  bool first = true;
  for (const auto& [name, value] : run.params) {
    out << (first ? "" : " ") << escape_controls(name) << "=" << escape_controls(value);
    first = false;
  }
  out << ")\n";
  size_t width = 0;
  for (const auto& row : run.results) width = std::max(width, escape_controls(row.label).size());
  for (const auto& row : run.results) {
    out << "  " << std::left << std::setw(static_cast<int>(width) + 2) << escape_controls(row.label) << std::right
        << std::setw(14) << format_value(row.value, escape_controls(row.unit)) << "\n";
  }
  for (const auto& note : run.notes) out << "  " << escape_controls(note) << "\n";
}

}  // namespace

void print_results(std::ostream& out, const demos::Program& demo, const demos::ParamValues& values,
                   const demos::Results& results) {
  print_table(out, demos::run_origin(demo, values, &results));
}

// The per-line table of a script's run as JSON rows (times in seconds).
nlohmann::json lines_json(const std::vector<trace::LineFigures>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const trace::LineFigures& r : rows) {
    out.push_back({{"file", r.file}, {"line", r.line}, {"runs", r.runs}, {"ops", r.ops},
                   {"enqueue_s", static_cast<double>(r.enqueue_ns) / 1e9}, {"waits", r.waits},
                   {"wait_s", static_cast<double>(r.wait_ns) / 1e9}, {"bytes", r.bytes}});
  }
  return out;
}

// The table for a terminal, each row followed by its line's text: from
// `texts` (the script's own, as it ran: its file may be a pipe, read once)
// or read from the regular files the rows name; a file that cannot be read
// shows no text.
void print_lines(std::ostream& out, const std::vector<trace::LineFigures>& rows,
                 const std::map<std::string, std::string>& texts) {
  std::map<std::string, std::vector<std::string>> files;
  const auto text_of = [&files, &texts](const trace::LineFigures& r) -> std::string {
    auto it = files.find(r.file);
    if (it == files.end()) {
      std::string text;
      std::error_code ec;
      if (const auto known = texts.find(r.file); known != texts.end()) {
        text = known->second;
      } else if (std::filesystem::is_regular_file(r.file, ec)) {
        try {
          text = read_whole_file(r.file);
        } catch (const std::invalid_argument&) {
        }
      }
      std::vector<std::string> lines;
      std::istringstream in(text);
      for (std::string line; std::getline(in, line);) lines.push_back(line);
      it = files.emplace(r.file, std::move(lines)).first;
    }
    return r.line >= 1 && r.line <= it->second.size() ? it->second[r.line - 1] : "";
  };
  out << "\nper line (ops pushed, time enqueuing, waits, time waiting, bytes allocated):\n"
      << trace::format_line_table(rows, text_of);
}

RunAnswers answers_of(const trace::TraceModel& model) {
  trace::RunInsight insight;
  insight.update(model, true);
  return {insight.verdict(), insight.peak_holders(model)};
}

namespace {

// The holders at a peak as JSON rows: op, line (null: none), scope (null:
// none; the whole nesting), bytes, count.
nlohmann::json holders_json(const trace::HolderTable& table) {
  nlohmann::json holders = nlohmann::json::array();
  for (const trace::Holder& h : table.rows) {
    holders.push_back({{"op", h.op},
                       {"line", h.line.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.line)},
                       {"scope", h.scope.empty() ? nlohmann::json(nullptr) : nlohmann::json(h.scope)},
                       {"bytes", h.bytes},
                       {"count", h.count}});
  }
  return holders;
}

}  // namespace

void print_answers(std::ostream& out, const RunAnswers& a) {
  out << "  " << a.verdict.text() << "\n";
  if (a.peak.buffers == 0) return;
  out << "  at the peak of live bytes (" << format_value(static_cast<double>(a.peak.live_bytes), "B") << " in "
      << a.peak.buffers << " buffers, t = " << format_value(static_cast<double>(a.peak.t) * 1e-9, "s")
      << "), held by:\n";
  size_t width = 14;
  for (const trace::Holder& h : a.peak.rows) width = std::max(width, trace::holder_label(h).size() + 2);
  for (const trace::Holder& h : a.peak.rows) {
    out << "    " << std::left << std::setw(static_cast<int>(width)) << trace::holder_label(h) << std::setw(22)
        << (h.line.empty() ? "" : h.line) << std::right
        << std::setw(12) << format_value(static_cast<double>(h.bytes), "B") << "  in " << h.count << "\n";
  }
}

std::string results_json(const demos::Program& demo, const demos::ParamValues& values, const demos::Results& results,
                         const std::vector<trace::LineFigures>& lines, const RunAnswers& answers) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [name, value] : values.values()) {
    std::visit([&params, &name](const auto& v) { params[name] = v; }, value);
  }
  nlohmann::json rows = nlohmann::json::object();
  for (const auto& row : results.rows) rows[row.key] = row.value;
  nlohmann::json doc = {{"demo", demo.name()}, {"params", params}, {"results", rows}, {"notes", results.notes}};
  if (!lines.empty()) doc["lines"] = lines_json(lines);
  const trace::Verdict& v = answers.verdict;
  doc["bound"] = v.bound == trace::Bound::unknown ? nlohmann::json(nullptr) : nlohmann::json(trace::to_string(v.bound));
  doc["verdict"] = v.text();
  doc["t1_s"] = v.t1_ns * 1e-9;
  doc["t2_s"] = v.t2_ns * 1e-9;
  doc["worker_busy_frac"] = v.worker_busy_frac;
  doc["worker_starved_frac"] = v.worker_starved_frac;
  doc["worker_held_frac"] = v.worker_held_frac;
  doc["frontend_wait_frac"] = v.frontend_wait_frac;
  doc["frontend_enqueue_frac"] = v.frontend_enqueue_frac;
  doc["peak_live_holders"] = holders_json(answers.peak);
  // Which BLAS kernel the products ran on, for any figure compared with another library's.
  try {
    const blas::Info& info = blas::info();
    doc["blas"] = {{"library", info.library},     {"core", info.core},
                   {"forced_core", info.forced_core}, {"reason", info.reason},
                   {"thread_timeout", info.thread_timeout}, {"threads", blas::threads()}};
  } catch (const std::exception& e) {
    doc["blas"] = {{"error", e.what()}};
  }
  doc["peak_live_bytes"] = answers.peak.live_bytes;
  doc["peak_live_t_s"] = static_cast<double>(answers.peak.t) * 1e-9;
  return doc.dump(2) + "\n";
}

// What one of our own saved runs answers, with a run's JSON keys.
std::string saved_run_json(const trace::TraceModel& model) {
  const RunAnswers answers = answers_of(model);
  const trace::Verdict& v = answers.verdict;
  nlohmann::json doc;
  doc["format"] = "asyncscope";
  // What made it, as the run's own JSON has it (a knob's number as a number).
  if (const trace::RunOrigin& o = model.origin; !o.empty()) {
    doc["demo"] = o.program;
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, text] : o.params) {
      const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
      params[name] = parsed.is_number() ? parsed : nlohmann::json(text);
    }
    doc["params"] = std::move(params);
    nlohmann::json rows = nlohmann::json::object();
    for (const trace::RunOrigin::Row& r : o.results) rows[r.key] = r.value;
    doc["results"] = std::move(rows);
    doc["notes"] = o.notes;
  }
  doc["bound"] = v.bound == trace::Bound::unknown ? nlohmann::json(nullptr) : nlohmann::json(trace::to_string(v.bound));
  doc["verdict"] = v.text();
  doc["t1_s"] = v.t1_ns * 1e-9;
  doc["t2_s"] = v.t2_ns * 1e-9;
  doc["worker_busy_frac"] = v.worker_busy_frac;
  doc["worker_starved_frac"] = v.worker_starved_frac;
  doc["worker_held_frac"] = v.worker_held_frac;
  doc["frontend_wait_frac"] = v.frontend_wait_frac;
  doc["peak_live_holders"] = holders_json(answers.peak);
  doc["peak_live_bytes"] = answers.peak.live_bytes;
  doc["peak_live_t_s"] = static_cast<double>(answers.peak.t) * 1e-9;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Reads a saved trace and prints what it holds; its path and lane names are
// escaped (a file's text must not drive the terminal).
void describe_trace(const std::string& path, const trace::TraceModel& m, std::ostream& out) {
  size_t ops = 0, failed = 0;
  for (const auto& op : m.ops) {
    if (!op.known() || op.internal) continue;
    ++ops;
    failed += op.status == trace::OpStatus::failed;
  }
  out << escape_controls(path) << ": " << ops << " ops, " << m.syncs.size() << " waits, " << m.counters.size()
      << " counter samples over " << format_value(static_cast<double>(m.end_time()) * 1e-9, "s") << "\n";
  for (const auto& lane : m.frontends) {
    out << "  " << escape_controls(lane.name) << ": " << lane.enqueues.size() << " enqueues, " << lane.syncs.size()
        << " waits\n";
  }
  // A GPU op is on two lanes, its stream's launch lane and GPU lane: count it as one op and one launch.
  for (const auto& lane : m.workers) {
    out << "  " << escape_controls(lane.name) << ": " << lane.ops.size() << (lane.launches() ? " launches" : " ops");
    if (!lane.helps.empty()) out << ", helped with " << lane.helps.size() << " parts of other workers' ops";
    out << "\n";
  }
  if (failed > 0) out << "  " << failed << " ops failed\n";
  if (m.dropped > 0) out << "  " << m.dropped << " events were dropped when the recorder's bound was hit\n";
  // What made it, as the run printed it.
  if (!m.origin.empty()) {
    out << "made by ";
    print_table(out, m.origin);
  }
}

// What the picture says under its lanes: the verdict, and what held the memory at its peak.
std::vector<std::string> picture_notes(const trace::OpenedTrace& t, const trace::TraceModel& model,
                                       const trace::RunInsight& insight) {
  std::vector<std::string> notes;
  if (t.foreign()) {
    notes.push_back(t.figures->verdict.text);
    for (const trace::DeviceMemorySeries& d : t.figures->memory) {
      if (d.peak.rows.empty()) continue;
      std::string line = d.label + " at its peak (" + format_bytes(d.peak_bytes) + ") held by:";
      for (size_t i = 0; i < d.peak.rows.size() && i < 3; ++i) {
        line += (i == 0 ? " " : ", ") + d.peak.rows[i].op + " " + format_bytes(static_cast<int64_t>(d.peak.rows[i].bytes));
      }
      notes.push_back(line);
    }
    return notes;
  }
  const trace::Verdict v = insight.verdict();
  notes.push_back(v.text());
  const trace::HolderTable peak = insight.peak_holders(model);
  if (peak.buffers > 0) {
    std::string line = "at the peak of live bytes (" + format_bytes(static_cast<int64_t>(peak.live_bytes)) + "), held by:";
    for (size_t i = 0; i < peak.rows.size() && i < 3; ++i) {
      const trace::Holder& h = peak.rows[i];
      line += (i == 0 ? " " : ", ") + trace::holder_label(h) + (h.line.empty() ? "" : " (" + h.line + ")") + " " +
              format_bytes(static_cast<int64_t>(h.bytes));
    }
    notes.push_back(line);
  }
  return notes;
}

int report_trace(const TraceReport& r, std::ostream& out, std::ostream& err, OutputSet* given) {
  try {
    OutputSet own(out, err);
    OutputSet& outputs = given != nullptr ? *given : own;
    outputs.add_input("the trace", r.path);
    if (r.json != nullptr) outputs.add("--json", *r.json);
    if (r.svg != nullptr) outputs.add("--svg", *r.svg);
    const trace::OpenedTrace opened = trace::open_trace(r.path, r.options);
    // A window of the trace is a trace of its own: its verdict, figures and holders are the window's.
    const bool windowed = r.range_from >= 0 || r.range_to >= 0;
    const int64_t end = opened.model.end_time();
    const int64_t from = std::max<int64_t>(0, r.range_from);
    const int64_t to = r.range_to >= 0 ? r.range_to : end + 1;
    if (windowed && from > end) {
      throw std::invalid_argument("--range starts at " + format_duration(from) + ", after the trace's end (" +
                                  format_duration(end) + "): choose a window within it");
    }
    trace::OpenedTrace window;
    if (windowed) window = trace::window_of(opened, from, to, r.options);
    const trace::OpenedTrace& shown = windowed ? window : opened;
    if (r.print) {
      if (opened.foreign()) {
        trace::describe_profile(shown, r.path, out);
      } else {
        describe_trace(r.path, shown.model, out);
      }
    }
    std::string text, picture;
    if (r.json != nullptr) {
      text = shown.foreign() ? trace::profile_json(shown) : saved_run_json(shown.model);
      outputs.set_content("--json", [&text](std::ostream& o) { o << text; });
    }
    if (r.svg != nullptr) {
      trace::RunInsight insight;
      insight.update(shown.model, true);
      widgets::SvgOptions o;
      o.width = r.svg_width;
      o.title = r.title != nullptr ? *r.title
                                   : std::filesystem::path(r.path).filename().string() + " (" + opened.format_text() + ")";
      if (windowed) {
        o.from_ns = from;
        o.to_ns = std::max(to, from + 1);
      }
      o.notes = picture_notes(shown, shown.model, insight);
      picture = widgets::timeline_svg(shown.model, shown.foreign() ? nullptr : &insight, o);
      outputs.set_content("--svg", [&picture](std::ostream& o) { o << picture; });
    }
    if (!outputs.empty()) outputs.commit();
  } catch (const std::exception& e) {
    say(err, e.what());
    return 2;
  }
  return 0;
}

std::string check_outputs(const std::vector<std::pair<std::string, std::string>>& outputs,
                          const std::vector<std::pair<std::string, std::string>>& inputs) {
  std::ostringstream unused;
  OutputSet set(unused, unused);
  try {
    for (const auto& [what, path] : inputs) set.add_input(what, path);
    for (const auto& [what, path] : outputs) set.add(what, path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace asyncscope::app
