; Lua: `require` (calls come from the grammar's tags query).
(function_call
  name: (identifier) @_require
  arguments: (arguments . (string content: (string_content) @name))
  (#eq? @_require "require")) @reference.import
