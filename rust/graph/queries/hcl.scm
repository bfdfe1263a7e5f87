; HCL: function calls.
(function_call (identifier) @name) @reference.call
