; Calls: a bare name, or a member (obj.method).
(call_expression function: (identifier) @name) @call
(call_expression function: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @call
(new_expression constructor: (identifier) @name) @call
