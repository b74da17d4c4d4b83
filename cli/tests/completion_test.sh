#!/usr/bin/env bash
# The generated completion scripts complete every command and every option `--help` shows (issue
# 52): each command path is walked through `qsacheck PATH --help` (an account independent of the
# generator), then bash's completion function is called at that path, once after "-" (every option
# of the command must be offered) and once on an empty word (every subcommand). The zsh script must
# parse (zsh -n) and list the same words for each path. No numeric option shows TEXT in --help.
# Usage: completion_test.sh QSACHECK BASH_COMPLETION ZSH_COMPLETION
set -eu -o pipefail
qsacheck=$1 bash_completion=$2 zsh_completion=$3
# shellcheck source=/dev/null
source "$bash_completion"
failures=0 paths=0 words=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# complete WORD...: COMPREPLY for the command line "qsacheck WORD..." with the cursor on the last word.
complete_at() {
  COMP_WORDS=(qsacheck "$@")
  COMP_CWORD=$(($# ))
  COMPREPLY=()
  _qsacheck
}

offered() {  # offered WORD: whether COMPREPLY holds WORD
  local w
  for w in "${COMPREPLY[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

walk() {  # walk PATH_WORDS...
  local help options subcommands word
  help=$("$qsacheck" "$@" --help)
  paths=$((paths + 1))
  # Options: the first column of an indented line starting with '-' ("-o,--output TEXT ...").
  options=$(sed -n 's/^  \{1,\}\(-[^ ]*\).*/\1/p' <<<"$help" | tr ',' '\n' | sed 's/[=[].*//' | grep -E '^--?[A-Za-z0-9]' | sort -u)
  subcommands=$(awk '/^[A-Za-z][A-Za-z ]*:$/ {section = $0; next} section == "Subcommands:" && /^  [a-z]/ {print $1}' <<<"$help")
  # A numeric option (its help states a range, "1 ... 2^24") names its value type, not TEXT.
  if grep -E '^  +-[^ ]* TEXT.* [0-9]+ \.\.\. ' <<<"$help"; then fail "'qsacheck $* --help': a numeric option shows TEXT"; fi
  # Matched in the shell: a pipe into grep -q can fail its writer with SIGPIPE under pipefail.
  complete_at "$@" -
  for word in $options; do
    words=$((words + 1))
    offered "$word" || fail "bash: 'qsacheck $* -' does not offer $word"
  done
  complete_at "$@" ""
  for word in $subcommands; do
    words=$((words + 1))
    offered "$word" || fail "bash: 'qsacheck $* ' does not offer $word"
  done
  local entry
  entry=$(grep -F "    \"$*\") subs=(" "$zsh_completion" || true)
  [ -n "$entry" ] || fail "zsh: no entry for '$*'"
  for word in $options $subcommands; do
    [[ " $(tr '();' '   ' <<<"$entry") " == *" $word "* ]] || fail "zsh: '$*' lacks $word"
  done
  for word in $subcommands; do walk "$@" "$word"; done
}

walk
if command -v zsh >/dev/null; then
  zsh -n "$zsh_completion" || fail "zsh -n rejects the zsh completion"
else
  echo "no zsh here: its script's syntax is not checked (apt-get install zsh)"
fi
echo "$paths command paths, $words words checked, $failures failures"
[ "$failures" = 0 ] && [ "$paths" -gt 10 ]
