mod acquire_plan;
mod admission;
