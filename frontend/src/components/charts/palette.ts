/** A colour-blind-safe palette (Okabe–Ito), one per theme. */
export const PALETTE = {
  light: ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#7a6a00', '#555555'],
  dark: ['#56B4E9', '#E69F00', '#2FD0A0', '#E08FC0', '#F0E442', '#7FB0FF', '#FF8F5A', '#BBBBBB'],
}
