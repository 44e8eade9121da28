// Programs: parameter specs and validation, the registry of demos, the
// context a program asks for, the views it wants.
#include "engine/demos/program.h"

#include <gtest/gtest.h>

#include <set>

#include "engine/cuda/cuda.h"
#include "engine/demos/registry.h"
#include "support/run_program.h"

namespace asyncscope::demos {
namespace {

TEST(Demos, RegistryHasTheTeachingDemosWithValidDefaults) {
  std::set<std::string> names;
  for (const auto& d : all_demos()) {
    EXPECT_TRUE(names.insert(d->name()).second) << "duplicate " << d->name();
    EXPECT_FALSE(d->title().empty());
    EXPECT_FALSE(d->summary().empty());
    const ParamValues defaults = d->defaults();
    for (const Param& p : d->params()) EXPECT_NO_THROW(defaults.text(p.name)) << d->name() << " --" << p.name;
    EXPECT_EQ(find_demo(d->name()), d.get());
  }
  for (const char* n : {"queued-vs-finished", "sync-functions", "sync-vs-async", "dependency-graph", "host-vs-gpu"}) {
    EXPECT_NE(find_demo(n), nullptr) << n;
  }
  EXPECT_EQ(find_demo("nope"), nullptr);
}

TEST(Demos, ParamValuesRejectBadTextWithAOneLineReason) {
  ParamValues v(find_demo("sync-vs-async")->params());
  EXPECT_EQ(v.integer("iterations"), 1000);
  v.set("iterations", "25");
  EXPECT_EQ(v.integer("iterations"), 25);
  auto message = [&v](const std::string& name, const std::string& text) {
    try {
      v.set(name, text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("iterations", "ten").find("not a whole number"), std::string::npos);
  EXPECT_NE(message("iterations", "1.5").find("not a whole number"), std::string::npos);
  EXPECT_NE(message("iterations", "0").find("out of range (allowed: 1..1000000)"), std::string::npos);
  EXPECT_NE(message("iterations", "-3").find("out of range"), std::string::npos);
  EXPECT_NE(message("device", "tpu").find("not one of cpu|cuda"), std::string::npos);
  EXPECT_NE(message("colour", "red").find("unknown parameter"), std::string::npos);
  for (const std::string& m : {message("iterations", "ten"), message("device", "tpu")}) {
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  EXPECT_EQ(v.integer("iterations"), 25) << "a rejected value leaves the old one";
}

// What a trace keeps of a run, and the knobs set again from it.
TEST(Demos, ARunsOriginKeepsItsKnobsAndResultsAndSetsThemAgain) {
  const Program& demo = *find_demo("sync-vs-async");
  ParamValues v = demo.defaults();
  v.set("iterations", "25");
  v.set("size", "64");
  Results results;
  results.rows = {{"sync_s", "a wait per iteration", 0.5, "s"}, {"speedup", "speed-up", 1.7, "x"}};
  results.notes = {"backend-bound"};
  const trace::RunOrigin origin = run_origin(demo, v, &results);
  EXPECT_EQ(origin.program, "sync-vs-async");
  ASSERT_EQ(origin.params.size(), demo.params().size());
  for (size_t i = 0; i < origin.params.size(); ++i) {
    EXPECT_EQ(origin.params[i].first, demo.params()[i].name) << "in the program's order";
    EXPECT_EQ(origin.params[i].second, v.text(demo.params()[i].name));
  }
  const Results back = results_of(origin);
  ASSERT_EQ(back.rows.size(), 2u);
  EXPECT_EQ(back.rows[1].key, "speedup");
  EXPECT_EQ(back.rows[1].value, 1.7);
  EXPECT_EQ(back.notes, results.notes);
  EXPECT_TRUE(run_origin(demo, v, nullptr).results.empty());

  ParamValues fresh = demo.defaults();
  EXPECT_TRUE(apply_origin(origin, fresh).empty());
  EXPECT_EQ(fresh.integer("iterations"), 25);
  EXPECT_EQ(fresh.integer("size"), 64);

  // A knob the program does not have, or a value it refuses, is left as it was and named.
  trace::RunOrigin odd = origin;
  odd.params = {{"iterations", "0"}, {"colour", "red"}, {"size", "32"}};
  ParamValues other = demo.defaults();
  const std::vector<std::string> skipped = apply_origin(odd, other);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("out of range"), std::string::npos) << skipped[0];
  EXPECT_EQ(skipped[1], "colour=red: sync-vs-async has no such knob here");
  EXPECT_EQ(other.integer("iterations"), demo.defaults().integer("iterations"));
  EXPECT_EQ(other.integer("size"), 32);
}

TEST(Demos, CudaIsRefusedWithTheReason) {
  if (cuda::available()) GTEST_SKIP() << "a CUDA device is present (runs on it are tested in tests/engine/cuda)";
  const Program* demo = find_demo("queued-vs-finished");
  ParamValues v = demo->defaults();
  v.set("device", "cuda");
  v.set("size", "8");
  RunHooks hooks;
  RunControl control;
  try {
    run_program(*demo, v, hooks, control);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA is not available: " + cuda::status().reason), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(hooks.recorder, nullptr) << "refused before anything ran";
}

TEST(Programs, TheContextRequestComesFromTheSharedParameters) {
  const Program* demo = find_demo("memory-and-sync");
  ParamValues v = demo->defaults();
  v.set("workers", "3");
  v.set("seed", "42");
  v.set("max-inflight", "17");
  const ContextRequest r = demo->context_request(v);
  EXPECT_EQ(r.workers, 3);
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.max_inflight, 17);
  EXPECT_EQ(r.device, Device::cpu());
  // A program without a parameter gets the default for it.
  EXPECT_EQ(find_demo("queued-vs-finished")->context_request(find_demo("queued-vs-finished")->defaults()).max_inflight,
            0);
}

TEST(Programs, ProgramsDeclareTheViewsTheyWant) {
  for (const auto& d : all_demos()) {
    EXPECT_EQ(d->views().op_graph, d->name() == "dependency-graph") << d->name();
  }
}

}  // namespace
}  // namespace asyncscope::demos
