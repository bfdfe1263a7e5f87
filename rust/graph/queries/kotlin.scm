; Kotlin: calls, imports, supertypes, user types.
(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression (identifier) @name .)) @reference.call
(import (qualified_identifier) @name) @reference.import
(delegation_specifier (user_type (identifier) @name)) @reference.inherit
(delegation_specifier (constructor_invocation (user_type (identifier) @name))) @reference.inherit
(user_type (identifier) @name) @reference.type
