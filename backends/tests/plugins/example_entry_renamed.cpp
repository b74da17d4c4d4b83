// The host example's plugin table under another entry name, for aborting_plugin.cpp to wrap (a
// library exports one qsa_plugin_entry).
#define qsa_plugin_entry qsa_example_entry
#include "plugin.cpp"
