"""The protobuf wire: the number ledger (`ledger`) and the planner (`plan`) that turns the IR and
a spec's `[proto]` table into proto3 messages, a product every target shares."""
