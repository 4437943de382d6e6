# Writes the man page augment(1) from the program's own --help texts: the top-level help, then
# each command's, as preformatted troff. Run after augment is linked (apps/augment/CMakeLists.txt):
#   cmake -DAUGMENT=path/to/augment -DVERSION=x.y.z -DOUTPUT=augment.1 -P cmake/ManPage.cmake

function(help out)
  execute_process(COMMAND ${AUGMENT} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "augment ${ARGN} --help failed (${rc})")
  endif()
  string(REPLACE "${AUGMENT}" "augment" text "${text}")  # the usage lines name the program
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Troff: a backslash is \e, a hyphen \- (so options read and paste as typed), and a line may not
# start with a control character.
function(preformatted out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  string(STRIP "${text}" text)
  set(${out} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

help(top)
# The first line is "augment: what it does"; the commands are listed after "Subcommands:".
string(REGEX MATCH "^augment: ([^\n]*)" _ "${top}")
set(summary "${CMAKE_MATCH_1}")
string(FIND "${top}" "\nSubcommands:\n" at)
if(at EQUAL -1 OR summary STREQUAL "")
  message(FATAL_ERROR "augment --help: no summary line or no \"Subcommands:\" list")
endif()
string(SUBSTRING "${top}" ${at} -1 listing)
string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" commands "${listing}")
list(TRANSFORM commands STRIP)

string(REGEX REPLACE "\\.$" "" summary "${summary}")
string(REPLACE "-" "\\-" summary "${summary}")
preformatted(body "${top}")
string(CONCAT page
  ".TH AUGMENT 1 \"\" \"augment ${VERSION}\" \"User Commands\"\n"
  ".SH NAME\naugment \\- ${summary}\n"
  ".SH SYNOPSIS\n.B augment\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fICOMMAND OPTIONS\\fR]\n"
  ".SH DESCRIPTION\n${body}"
  ".SH COMMANDS\n")
foreach(command IN LISTS commands)
  help(text ${command})
  preformatted(body "${text}")
  string(REPLACE "-" "\\-" name "${command}")
  string(APPEND page ".SS augment ${name}\n${body}")
endforeach()
string(APPEND page ".SH SEE ALSO\nREADME.md and docs/ in augment's source tree.\n")
file(WRITE ${OUTPUT} "${page}")
