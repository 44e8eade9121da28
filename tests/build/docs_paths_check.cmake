# Every path the docs name exists: README.md and docs/*.md name files and
# folders of the tree (in backticks, `engine/core/var.h`) and link to each
# other; a rename that forgets them fails here.
#
# Run by ctest (tests/CMakeLists.txt) as
#   cmake -DROOT=<source root> -P docs_paths_check.cmake
# A name with a placeholder (NAME) or a wildcard is a pattern, not a path,
# and is skipped; so are paths under build/ (made by the build).

cmake_minimum_required(VERSION 3.25)

file(GLOB docs "${ROOT}/docs/*.md")
list(APPEND docs "${ROOT}/README.md")
set(missing "")
set(checked 0)
foreach(doc IN LISTS docs)
  file(READ "${doc}" text)
  get_filename_component(doc_dir "${doc}" DIRECTORY)
  # `top/…` in backticks, where top is one of the tree's folders.
  string(REGEX MATCHALL "`(app|engine|widgets|python|tests|bench|assets|docs|scripts)/[A-Za-z0-9_./-]*`" quoted "${text}")
  foreach(token IN LISTS quoted)
    string(REGEX REPLACE "^`|`$" "" path "${token}")
    if(path MATCHES "NAME|\\*")
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    if(NOT EXISTS "${ROOT}/${path}")
      list(APPEND missing "${doc}: ${path}")
    endif()
  endforeach()
  # Markdown links to files of the tree: [text](docs/x.png), [text](PERFORMANCE.md#section).
  # (Brackets are marked first: CMake's lists do not split inside them.)
  string(REPLACE "](" " @link@" marked "${text}")
  string(REGEX MATCHALL "@link@[^)#: \n]+" links "${marked}")
  foreach(link IN LISTS links)
    string(REPLACE "@link@" "" target "${link}")
    math(EXPR checked "${checked} + 1")
    if(NOT EXISTS "${doc_dir}/${target}")
      list(APPEND missing "${doc}: link ${target}")
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "no path found in the docs: the check itself is broken")
endif()
if(missing)
  list(JOIN missing "\n  " lines)
  message(FATAL_ERROR "paths the docs name that do not exist:\n  ${lines}")
endif()
message(STATUS "${checked} paths and links in the docs exist")
