mod candidates;
mod failover;
