mod admission;
