; Zig: calls, `@import`.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression object: (_) @receiver member: (identifier) @name)) @reference.call
(builtin_function
  (builtin_identifier) @_import
  (arguments (string) @name)
  (#eq? @_import "@import")) @reference.import
(call_expression function: (field_expression member: (identifier) @name)) @reference.call
