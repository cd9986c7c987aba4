package acme.nometa

deny contains {"msg": "x", "path": ""} if input.kind == "Pod"
