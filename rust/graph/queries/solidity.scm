; Solidity: the grammar's tags query covers calls, events, inheritance and imports.
(user_defined_type (identifier) @name) @reference.type
