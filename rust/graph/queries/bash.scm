; Bash: commands (functions are called as commands), `source`.
(command name: (command_name (word) @name)) @reference.call
(command
  name: (command_name (word) @_source)
  argument: (word) @name
  (#any-of? @_source "source" ".")) @reference.import
