; Swift: calls (an initializer call is a call), imports, inheritance and conformances, types.
(call_expression . (simple_identifier) @name) @reference.call
(call_expression . (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call
(constructor_expression constructed_type: (user_type (type_identifier) @name)) @reference.call
(import_declaration (identifier) @name) @reference.import
(inheritance_specifier inherits_from: (user_type (type_identifier) @name)) @reference.inherit
(user_type (type_identifier) @name) @reference.type
