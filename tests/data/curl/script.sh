#!/bin/sh
# Seed the shop, then check it (as API docs show it).
cat <<NOTE > seed.txt
curl https://not-a-request.example.test/
NOTE
curl -sS --data-binary @- https://shop.example.test/api/orders \
  -H 'Content-Type: application/json' <<EOF
{"item": "tea", "by": "$SHOP_USER"}
EOF
curl -s https://shop.example.test/api/orders > orders.json 2>&1
