#include "app/gui/run_list.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "app/interrupt.h"
#include "engine/base/output_file.h"
#include "engine/trace/chrome_trace.h"
#include "engine/trace/profile_model.h"
#include "widgets/time_axis.h"

namespace asyncscope::app {

std::string RunRecord::title() const {
  if (!source.empty()) return std::filesystem::path(source).filename().string();
  return "run " + std::to_string(number) + ": " + program;
}

std::string params_text(const demos::ParamValues& values) {
  std::string s;
  for (const demos::Param& p : values.specs()) {
    if (!s.empty()) s.push_back(' ');
    s.append(p.name).append("=").append(values.text(p.name));
  }
  return s;
}

RunRecord& RunList::add_live(const demos::Program& program, const demos::ParamValues& values,
                             std::shared_ptr<trace::Recorder> recorder) {
  if (live() != nullptr) throw std::logic_error("a run is already live");
  auto record = std::make_unique<RunRecord>();
  record->program = program.name();
  record->params_text = params_text(values);
  record->origin = demos::run_origin(program, values, nullptr);
  record->recorder = std::move(recorder);
  record->reader = std::make_unique<trace::TraceReader>(*record->recorder);
  record->views = program.views();
  record->live = true;
  record->timeline.follow_live = true;
  RunRecord& added = add(std::move(record));
  live_ = current_;
  return added;
}

RunRecord& RunList::add_attached(std::string program, std::shared_ptr<trace::Recorder> recorder) {
  if (live() != nullptr) throw std::logic_error("a run is already live");
  auto record = std::make_unique<RunRecord>();
  record->program = std::move(program);
  record->params_text = "attached live";
  record->recorder = std::move(recorder);
  record->reader = std::make_unique<trace::TraceReader>(*record->recorder);
  record->live = true;
  record->timeline.follow_live = true;
  RunRecord& added = add(std::move(record));
  live_ = current_;
  return added;
}

RunRecord& RunList::open_trace(const std::string& path, const trace::AnalysisOptions& options) {
  auto record = std::make_unique<RunRecord>();
  trace::OpenedTrace opened = trace::open_trace(path, options);
  record->model = std::move(opened.model);
  record->profile = std::move(opened.profile);
  record->figures = std::move(opened.figures);
  record->notes = std::move(opened.notes);
  record->insight.update(record->model, true);
  record->source = path;
  record->program = record->profile ? std::string(trace::key_of(record->profile->format)) + " trace" : "trace";
  // Our own export keeps what made the run: the program, its knobs and its
  // result table (the app picks that program, so Run runs it again here).
  record->origin = record->model.origin;
  if (!record->origin.empty()) {
    record->params_text = record->origin.program + ":";
    for (const auto& [name, value] : record->origin.params) {
      if (!record->params_text.empty()) record->params_text.push_back(' ');
      record->params_text.append(name).append("=").append(value);
    }
    if (!record->origin.results.empty() || !record->origin.notes.empty()) record->results = demos::results_of(record->origin);
  }
  widgets::FitTimeline(record->timeline, record->model);
  record->timeline.follow_live = false;
  RunRecord& added = add(std::move(record));
  // A profiler's lanes are not our workers: the busy/held/starved strips
  // would misread them (a thread's own work is not pushed), so none are
  // drawn; the insight panel shows the trace's own figures instead.
  if (added.profile) added.timeline.insight = nullptr;
  return added;
}

RunRecord& RunList::add(std::unique_ptr<RunRecord> record) {
  record->number = next_number_++;
  record->timeline.insight = &record->insight;
  const RunRecord* before = current();
  // A rerun of the same program is compared with the run before it, and so
  // is a trace file opened after another (ours or a profiler's, in any mix).
  const bool comparable = before != nullptr && (before->program == record->program ||
                                                (!before->source.empty() && !record->source.empty()));
  compare_ = comparable ? current_ : -1;
  runs_.push_back(std::move(record));
  show(static_cast<int>(runs_.size()) - 1);
  return *runs_.back();
}

bool RunList::update_live(std::vector<std::string> lines, bool read_trace, bool last_open) {
  RunRecord* run = live();
  if (run == nullptr) return false;
  bool changed = !lines.empty();
  if (read_trace) {
    changed |= run->reader->update(run->model);
    run->insight.update(run->model, false);
  }
  if (!lines.empty()) {
    if (run->console_open) run->console.pop_back();  // it comes again, grown
    for (std::string& line : lines) run->console.push_back(std::move(line));
    run->console_open = last_open;
  }
  return changed;
}

void RunList::end_live(std::optional<demos::Results> results, std::string error) {
  RunRecord* run = live();
  if (run == nullptr) return;
  run->live = false;
  run->reader->update(run->model);  // what was recorded after the last frame's update
  run->insight.update(run->model, true);
  if (results && !run->origin.empty()) demos::keep_results(run->origin, *results);
  run->results = std::move(results);
  run->error = std::move(error);
  fit(*run);
  live_ = -1;
  ++generation_;
}

void RunList::show(int index) {
  if (index < 0 || index >= static_cast<int>(runs_.size())) return;
  current_ = index;
  ++generation_;
}

void RunList::compare_with(int index) {
  compare_ = index >= 0 && index < static_cast<int>(runs_.size()) ? index : -1;
}

RunRecord* RunList::live() { return live_ >= 0 ? runs_[static_cast<size_t>(live_)].get() : nullptr; }
RunRecord* RunList::current() { return current_ >= 0 ? runs_[static_cast<size_t>(current_)].get() : nullptr; }
void RunList::fit(RunRecord& run) {
  int64_t end = run.model.end_time();
  const RunRecord* other = compared();
  if (other != nullptr && &run == current()) end = std::max(end, other->model.end_time());
  run.timeline.view = widgets::fit_view(end);
}

RunRecord* RunList::compared() {
  return compare_ >= 0 && compare_ != current_ ? runs_[static_cast<size_t>(compare_)].get() : nullptr;
}

void export_trace(const RunRecord& run, const std::string& path) {
  write_output(
      path, [&run](std::ostream& out) { trace::write_chrome_trace(run.model, out, {run.title(), run.origin}); }, "trace",
      [] { return InterruptScope::signal_number() != 0; });
}

}  // namespace asyncscope::app
