// qsacheck-cli-definition: writes what is generated from the command line's definition
// (define_command_line), so nothing of it is kept by hand:
//   bash | zsh   the completion script: every command and every option of each
//   commands     one command path a line ("check", "eval metadata", ...), for the man page's sections
// Built with the CLI, run at build time (cli/CMakeLists.txt), never installed.

#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "command_line.hpp"

namespace {

struct Command {
  std::string path;                  // "" for qsacheck itself, "bench compare" for a nested one
  std::vector<std::string> subcommands;
  std::vector<std::string> options;  // every long and short name
  std::vector<std::string> valued;   // the options that take a value (completed with file names)
};

void collect(const CLI::App& app, const std::string& path, std::vector<Command>* out) {
  Command c{path, {}, {}, {}};
  for (const CLI::Option* o : app.get_options()) {
    std::vector<std::string> names;
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : o->get_snames()) names.push_back("-" + n);
    for (const std::string& n : names) {
      c.options.push_back(n);
      if (o->get_expected_min() > 0) c.valued.push_back(n);  // not a flag
    }
  }
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subs) c.subcommands.push_back(sub->get_name());
  out->push_back(c);
  for (const CLI::App* sub : subs) collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

std::string words(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& w : v) s += (s.empty() ? "" : " ") + w;
  return s;
}

// The words before the cursor name the command: each that is a subcommand of the one so far
// descends (options and their values are skipped because they are no command's name).
std::string descend_cases(const std::vector<Command>& commands, const char* indent) {
  std::string s;
  for (const Command& c : commands)
    for (const std::string& sub : c.subcommands)
      s += std::string(indent) + "\"" + c.path + "/" + sub + "\") cmd=\"" + (c.path.empty() ? "" : c.path + " ") +
           sub + "\" ;;\n";
  return s;
}

std::string bash(const std::vector<Command>& commands) {
  std::string s =
      "# bash completion for qsacheck, generated from its command-line definition (cli/tools/cli_definition.cpp)\n"
      "_qsacheck() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=\"\" i subs=\"\" opts=\"\" valued=\"\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"$cmd/${COMP_WORDS[i]}\" in\n" +
      descend_cases(commands, "      ") +
      "    esac\n"
      "  done\n"
      "  case \"$cmd\" in\n";
  for (const Command& c : commands)
    s += "    \"" + c.path + "\") subs=\"" + words(c.subcommands) + "\"; opts=\"" + words(c.options) + "\"; valued=\"" +
         words(c.valued) + "\" ;;\n";
  s += "  esac\n"
       "  if [[ \" $valued \" == *\" $prev \"* ]]; then\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  elif [[ $cur == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  elif [ -n \"$subs\" ]; then\n"
       "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
       "  else\n"
       "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
       "  fi\n"
       "}\n"
       "complete -o filenames -F _qsacheck qsacheck\n";
  return s;
}

std::string zsh(const std::vector<Command>& commands) {
  std::string s =
      "#compdef qsacheck\n"
      "# zsh completion for qsacheck, generated from its command-line definition (cli/tools/cli_definition.cpp)\n"
      "_qsacheck() {\n"
      "  local cmd=\"\" i\n"
      "  local -a subs opts valued\n"
      "  for ((i = 2; i < CURRENT; i++)); do\n"
      "    case \"$cmd/${words[i]}\" in\n" +
      descend_cases(commands, "      ") +
      "    esac\n"
      "  done\n"
      "  case \"$cmd\" in\n";
  for (const Command& c : commands)
    s += "    \"" + c.path + "\") subs=(" + words(c.subcommands) + "); opts=(" + words(c.options) + "); valued=(" +
         words(c.valued) + ") ;;\n";
  s += "  esac\n"
       "  if (( ${valued[(Ie)${words[CURRENT-1]}]} )); then\n"
       "    _files\n"
       "  elif [[ $PREFIX == -* ]]; then\n"
       "    compadd -a opts\n"
       "  elif (( ${#subs} )); then\n"
       "    compadd -a subs\n"
       "  else\n"
       "    _files\n"
       "  fi\n"
       "}\n"
       "_qsacheck \"$@\"\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc == 2 ? argv[1] : "";
  CLI::App app;
  qsa::cli::CommandJob job;
  qsa::cli::define_command_line(app, &job);
  std::vector<Command> commands;
  collect(app, "", &commands);
  if (what == "bash") {
    std::fputs(bash(commands).c_str(), stdout);
  } else if (what == "zsh") {
    std::fputs(zsh(commands).c_str(), stdout);
  } else if (what == "commands") {
    for (const Command& c : commands)
      if (!c.path.empty()) std::printf("%s\n", c.path.c_str());
  } else {
    std::fprintf(stderr, "usage: qsacheck-cli-definition bash|zsh|commands\n");
    return 2;
  }
  return 0;
}
