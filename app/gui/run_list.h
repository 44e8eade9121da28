// The runs of this session (and the trace files opened in it): which one is
// shown, which one is stacked below it to compare, and the one still live.
// Panels read runs from here; the app adds them and ends the live one.
// Threading: UI thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/demos/program.h"
#include "engine/trace/insight.h"
#include "engine/trace/profile_model.h"
#include "engine/trace/model.h"
#include "engine/trace_record/recorder.h"
#include "widgets/timeline.h"

namespace asyncscope::app {

// One run of this session, or a trace opened from a file.
struct RunRecord {
  int number = 0;
  std::string program;      // the program's name; "trace" for a file
  std::string params_text;  // "size=500 workers=2"
  std::string source;       // "" for a live run, else the file it was read from
  // What made it (program, knobs, results), written with its export; for a
  // file, what the file kept (empty for a profiler's or an older file).
  trace::RunOrigin origin;
  std::shared_ptr<trace::Recorder> recorder;
  std::unique_ptr<trace::TraceReader> reader;
  trace::TraceModel model;
  // A profiler's trace (not our own export): what it is, its figures (the
  // insight panel shows them instead of the lane classifier's verdict) and
  // what its import skipped or cannot show.
  std::shared_ptr<const trace::ProfileTrace> profile;
  std::shared_ptr<const trace::ProfileFigures> figures;
  std::vector<std::string> notes;
  // What the model answers (lane states, verdict, memory holders), brought up
  // to date with it; final once the run ended or was read from a file.
  trace::RunInsight insight;
  widgets::TimelineState timeline;  // its insight points at the one above
  std::optional<demos::Results> results;
  demos::ProgramViews views;         // what the program wants beside the timeline
  std::vector<std::string> console;  // the lines the program printed
  bool console_open = false;         // the last one has no newline yet (a prompt): it may grow
  // Where the next read of the live run's console starts: its open line again.
  size_t console_resume_at() const noexcept { return console.size() - (console_open ? 1 : 0); }
  std::string error;
  bool live = false;

  // "run 3: sync-vs-async", or the file's name.
  std::string title() const;
};

class RunList {
 public:
  // Adds a live run of `program` with `values`, read from `recorder` as it
  // grows, and shows it. There may be one live run at a time.
  RunRecord& add_live(const demos::Program& program, const demos::ParamValues& values,
                      std::shared_ptr<trace::Recorder> recorder);
  // Adds a live run of another process, followed through `recorder` (a
  // trace::LiveClient's), and shows it: `program` names it ("python3
  // train.py (pid 1234)"). There may be one live run at a time.
  RunRecord& add_attached(std::string program, std::shared_ptr<trace::Recorder> recorder);
  // Reads a trace (ours or a profiler's, trace::open_trace) into a new
  // record and shows it. Throws std::runtime_error with the reason (nothing
  // is added then).
  RunRecord& open_trace(const std::string& path, const trace::AnalysisOptions& options = {});
  // Brings the live run up to date: reads its trace's new events (unless
  // `read_trace` is false: nothing shows them now; the next read catches up)
  // and appends `lines`, what it printed from the record's
  // console_resume_at() on (an open last line comes again, grown);
  // `last_open`: the last of them has no newline yet. True when either
  // brought anything.
  bool update_live(std::vector<std::string> lines, bool read_trace = true, bool last_open = false);
  // The live run ended, with its results (if it finished) or error (if it
  // failed); the whole run comes into view.
  void end_live(std::optional<demos::Results> results, std::string error);

  // Makes run `index` the one shown.
  void show(int index);
  // Stacks run `index` below the one shown; -1 for none.
  void compare_with(int index);
  // Brings all of `run` into view (F, and when a run ends). The shown run
  // and the one stacked below it share a time axis, so when `run` is shown
  // with a comparison the view covers the longer of the two: neither is cut.
  void fit(RunRecord& run);

  RunRecord* live();
  // A run is live: started and its end not yet taken in (end_live).
  bool has_live() const noexcept { return live_ >= 0; }
  RunRecord* current();
  // The run stacked below the current one, or nullptr.
  RunRecord* compared();
  int current_index() const noexcept { return current_; }
  int compare_index() const noexcept { return compare_; }
  size_t size() const noexcept { return runs_.size(); }
  bool empty() const noexcept { return runs_.empty(); }
  const RunRecord& at(size_t index) const { return *runs_.at(index); }
  // Changes whenever a run is added, ends or another is shown: what is built
  // from the list (the result columns) needs rebuilding then, not every frame.
  uint64_t generation() const noexcept { return generation_; }

 private:
  // Appends and shows a run. The run shown before becomes the comparison
  // when both ran the same program (a rerun with other knobs); otherwise
  // nothing is compared.
  RunRecord& add(std::unique_ptr<RunRecord> record);

  std::vector<std::unique_ptr<RunRecord>> runs_;
  int current_ = -1;
  int compare_ = -1;
  int live_ = -1;
  int next_number_ = 1;
  uint64_t generation_ = 0;
};

// Writes a run's trace as a Chrome trace (Perfetto, chrome://tracing).
// Throws std::runtime_error naming the path and the reason.
void export_trace(const RunRecord& run, const std::string& path);

// "name=value" for each parameter, in the program's order.
std::string params_text(const demos::ParamValues& values);

}  // namespace asyncscope::app
