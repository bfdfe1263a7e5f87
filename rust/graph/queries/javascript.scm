; JavaScript and TypeScript: calls, `new`, ES imports, `require`.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression property: (property_identifier) @name)) @reference.call
(import_statement source: (string) @name) @reference.import
; `export {x} from './x.js'`: a barrel re-exports the module it names, an import of it.
(export_statement source: (string) @name) @reference.import
(import_specifier name: (identifier) @name) @reference.import
(import_clause (identifier) @name) @reference.import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) @name)
  (#eq? @_require "require")) @reference.import
(call_expression function: (member_expression property: (property_identifier) @name)) @reference.call
