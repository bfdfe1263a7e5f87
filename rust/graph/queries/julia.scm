; Julia: calls, `import`/`using`.
(call_expression . (identifier) @name) @reference.call
(call_expression . (field_expression (identifier) @name .)) @reference.call
(import_statement (identifier) @name) @reference.import
(using_statement (identifier) @name) @reference.import
(import_statement (selected_import . (identifier) @name)) @reference.import
(using_statement (selected_import . (identifier) @name)) @reference.import
