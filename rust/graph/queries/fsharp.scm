; F#: `open`, applications.
(import_decl (long_identifier) @name) @reference.import
(application_expression . (long_identifier_or_op (identifier) @name)) @reference.call
(application_expression . (long_identifier_or_op (long_identifier (identifier) @name .))) @reference.call
