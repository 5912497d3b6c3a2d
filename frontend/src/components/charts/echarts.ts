// ECharts, tree-shaken: line and bar with the components the dashboard uses. Loaded on
// demand by TrendChart (a chunk of its own), never in the shell bundle.
import { BarChart, LineChart } from 'echarts/charts'
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components'
import { init, use } from 'echarts/core'
import { CanvasRenderer } from 'echarts/renderers'

use([LineChart, BarChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer])

export { init }
