# The layers as the build enforces them: for each layer, the folders its own
# sources may include, and proof that every other folder fails to build.
#
# Run by ctest (tests/CMakeLists.txt) as
#   cmake -DCXX=<compiler> -DROOT=<source root> -DLAYERS=<target=dir|dir@...> -P layering_check.cmake
# where LAYERS carries each layer target's include directories. For every
# layer and every folder, a one-line source including a header of that folder
# is preprocessed with the layer's include directories: it must succeed
# exactly for the folders listed below, and fail (header not found) for the
# rest. Arrows point down only.

cmake_minimum_required(VERSION 3.25)

set(folders engine/base engine/trace_record engine/trace engine/core engine/cuda engine/tensor engine/nn engine/demos
    python/core python/embed widgets app)

# What each layer's sources may include (besides their own folder). The
# engine (core, cuda, tensor, nn) sees the recorder (trace_record) only,
# never what reads a trace (trace).
set(allowed_asyncscope_base "")
set(allowed_asyncscope_trace_record "")
set(allowed_asyncscope_trace engine/trace_record engine/base)
set(allowed_asyncscope_core engine/trace_record)
set(allowed_asyncscope_cuda engine/core engine/trace_record engine/base)
set(allowed_asyncscope_tensor engine/core engine/trace_record engine/base engine/cuda)
set(allowed_asyncscope_nn engine/tensor engine/core engine/trace_record engine/base)
set(allowed_asyncscope_demos engine/nn engine/tensor engine/core engine/trace engine/trace_record engine/base engine/cuda)
set(allowed_asyncscope_widgets engine/trace engine/trace_record engine/base)
set(allowed_asyncscope_python engine/demos engine/nn engine/tensor engine/core engine/trace engine/trace_record engine/base
    engine/cuda)
set(allowed_asyncscope_python_embed python/core engine/demos engine/nn engine/tensor engine/core engine/trace
    engine/trace_record engine/base)

set(failures "")
set(checked 0)
string(REPLACE "@" ";" layers "${LAYERS}")
foreach(layer IN LISTS layers)
  string(REGEX MATCH "^([^=]+)=([^=]+)=(.*)$" _ "${layer}")
  set(target ${CMAKE_MATCH_1})
  set(own ${CMAKE_MATCH_2})
  string(REPLACE "|" ";" dirs "${CMAKE_MATCH_3}")
  if(NOT DEFINED allowed_${target})
    continue()  # the app: the top, may include anything it links
  endif()
  set(flags "")
  foreach(d IN LISTS dirs)
    list(APPEND flags "-I${d}")
  endforeach()
  foreach(folder IN LISTS folders)
    file(GLOB headers RELATIVE ${ROOT} ${ROOT}/${folder}/*.h)
    list(SORT headers)
    list(GET headers 0 header)
    set(probe ${CMAKE_CURRENT_BINARY_DIR}/layering_probe.cpp)
    file(WRITE ${probe} "#include \"${header}\"\n")
    execute_process(COMMAND ${CXX} -std=c++20 -E ${flags} ${probe}
                    RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE error)
    if(folder STREQUAL own OR folder IN_LIST allowed_${target})
      set(expect_ok TRUE)
    else()
      set(expect_ok FALSE)
    endif()
    math(EXPR checked "${checked} + 1")
    if(expect_ok AND NOT result EQUAL 0)
      string(REGEX MATCH "[^\n]*error[^\n]*" first "${error}")
      list(APPEND failures "${target} cannot include ${header}, which it may: ${first}")
    elseif(NOT expect_ok AND result EQUAL 0)
      list(APPEND failures "${target} can include ${header}: an upward (or sideways) include builds")
    elseif(NOT expect_ok AND NOT error MATCHES "No such file")
      list(APPEND failures "${target} including ${header} failed for another reason than a missing header")
    endif()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "no layer was checked (LAYERS='${LAYERS}')")
endif()
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "layering broken:\n  ${text}")
endif()
message(STATUS "layering holds: ${checked} includes checked")
