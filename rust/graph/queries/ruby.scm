; Ruby: method calls, `X.new`, `require`, superclasses and mixins (a qualified one whole:
; `ActiveSupport::Callbacks` keeps `ActiveSupport` as its qualifier).
(call method: (identifier) @name) @reference.call
(call receiver: (_) @receiver method: (identifier) @name) @reference.call
(call receiver: (constant) @name method: (identifier) @_new (#eq? @_new "new")) @reference.call
(call
  method: (identifier) @_require
  arguments: (argument_list . (string (string_content) @name))
  (#any-of? @_require "require" "require_relative" "load")) @reference.import
(superclass (constant) @name) @reference.inherit
(superclass (scope_resolution) @name) @reference.inherit
(call
  method: (identifier) @_mixin
  arguments: (argument_list [(constant) (scope_resolution)] @name)
  (#any-of? @_mixin "include" "extend" "prepend")) @reference.inherit
